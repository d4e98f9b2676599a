"""Judging LLM translations: correct answers pass, broken ones are named.

Precision first: every correct translation below, in some forty languages
and in every direction between them, must pass, because a false rejection
costs a re-ask and maybe a worse engine. The failure examples are the ones
small models really produce: the source handed back, the wrong language or
script, lost or repeated sentinels, runaway repetition, truncation.
"""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.translation.checks import REASONS, check_translation, check_translations
from engines.translation.protect import SENTINEL
from tests.unit.translation.translation_support import FAST

# One sentence in many languages, as a careful translator would write it.
# Keys are API codes; "sr-Cyrl" is Serbian in Cyrillic (API code "sr").
PRESS_ANY_KEY: dict[str, str] = {
    "en": "Press any key to continue and save your game.",
    "de": "Drücke eine beliebige Taste, um fortzufahren und dein Spiel zu speichern.",
    "es": "Pulsa cualquier tecla para continuar y guardar tu partida.",
    "fr": "Appuyez sur une touche pour continuer et sauvegarder votre partie.",
    "it": "Premi un tasto qualsiasi per continuare e salvare la partita.",
    "pt": "Pressione qualquer tecla para continuar e salvar seu jogo.",
    "nl": "Druk op een willekeurige toets om door te gaan en je spel op te slaan.",
    "pl": "Naciśnij dowolny klawisz, aby kontynuować i zapisać grę.",
    "ru": "Нажмите любую клавишу, чтобы продолжить и сохранить игру.",
    "uk": "Натисніть будь-яку клавішу, щоб продовжити та зберегти гру.",
    "sr": "Pritisnite bilo koji taster da nastavite i sačuvate igru.",
    "sr-Cyrl": "Притисните било који тастер да наставите и сачувате игру.",
    "hr": "Pritisnite bilo koju tipku za nastavak i spremite igru.",
    "bg": "Натиснете произволен клавиш, за да продължите и да запазите играта си.",
    "cs": "Stiskněte libovolnou klávesu pro pokračování a uložení hry.",
    "zh": "按任意键继续并保存游戏。",
    "zh-TW": "按任意鍵繼續並儲存遊戲。",
    "ja": "任意のキーを押して続行し、ゲームを保存してください。",
    "ko": "아무 키나 눌러 계속하고 게임을 저장하세요.",
    "ar": "اضغط على أي مفتاح للمتابعة وحفظ لعبتك.",
    "fa": "برای ادامه و ذخیره بازی خود، هر کلیدی را فشار دهید.",
    "he": "לחץ על מקש כלשהו כדי להמשיך ולשמור את המשחק שלך.",
    "hi": "जारी रखने और अपना गेम सहेजने के लिए कोई भी कुंजी दबाएँ।",
    "th": "กดปุ่มใดก็ได้เพื่อดำเนินการต่อและบันทึกเกมของคุณ",
    "el": "Πατήστε οποιοδήποτε πλήκτρο για να συνεχίσετε και να αποθηκεύσετε το παιχνίδι σας.",
    "tr": "Devam etmek ve oyununu kaydetmek için herhangi bir tuşa bas.",
    "vi": "Nhấn phím bất kỳ để tiếp tục và lưu trò chơi của bạn.",
    "sv": "Tryck på valfri tangent för att fortsätta och spara ditt spel.",
    "no": "Trykk på en hvilken som helst tast for å fortsette og lagre spillet ditt.",
    "da": "Tryk på en vilkårlig tast for at fortsætte og gemme dit spil.",
    "fi": "Paina mitä tahansa näppäintä jatkaaksesi ja tallentaaksesi pelisi.",
    "id": "Tekan tombol apa saja untuk melanjutkan dan menyimpan permainan Anda.",
    "ms": "Tekan mana-mana kekunci untuk meneruskan dan menyimpan permainan anda.",
    "ro": "Apăsați orice tastă pentru a continua și a salva jocul.",
    "hu": "Nyomj meg egy gombot a folytatáshoz és a játék mentéséhez.",
    "tl": "Pindutin ang anumang key upang magpatuloy at i-save ang iyong laro.",
    "sw": "Bonyeza kitufe chochote ili kuendelea na kuhifadhi mchezo wako.",
}

DELETE_FILE: dict[str, str] = {
    "en": "Are you sure you want to delete this file?",
    "de": "Möchtest du diese Datei wirklich löschen?",
    "es": "¿Seguro que quieres eliminar este archivo?",
    "fr": "Voulez-vous vraiment supprimer ce fichier ?",
    "it": "Sei sicuro di voler eliminare questo file?",
    "pt": "Tem certeza de que deseja excluir este arquivo?",
    "nl": "Weet je zeker dat je dit bestand wilt verwijderen?",
    "pl": "Czy na pewno chcesz usunąć ten plik?",
    "ru": "Вы уверены, что хотите удалить этот файл?",
    "uk": "Ви впевнені, що хочете видалити цей файл?",
    "sr": "Da li ste sigurni da želite da obrišete ovu datoteku?",
    "sr-Cyrl": "Да ли сте сигурни да желите да обришете ову датотеку?",
    "hr": "Jeste li sigurni da želite izbrisati ovu datoteku?",
    "bg": "Сигурни ли сте, че искате да изтриете този файл?",
    "cs": "Opravdu chcete tento soubor smazat?",
    "zh": "确定要删除此文件吗？",
    "zh-TW": "確定要刪除此檔案嗎？",
    "ja": "このファイルを削除してもよろしいですか？",
    "ko": "이 파일을 삭제하시겠습니까?",
    "ar": "هل أنت متأكد من أنك تريد حذف هذا الملف؟",
    "fa": "آیا مطمئن هستید که می‌خواهید این فایل را حذف کنید؟",
    "he": "האם אתה בטוח שברצונך למחוק קובץ זה?",
    "hi": "क्या आप वाकई इस फ़ाइल को हटाना चाहते हैं?",
    "th": "คุณแน่ใจหรือไม่ว่าต้องการลบไฟล์นี้",
    "el": "Είστε βέβαιοι ότι θέλετε να διαγράψετε αυτό το αρχείο;",
    "tr": "Bu dosyayı silmek istediğinizden emin misiniz?",
    "vi": "Bạn có chắc chắn muốn xóa tệp này không?",
    "sv": "Är du säker på att du vill ta bort den här filen?",
    "no": "Er du sikker på at du vil slette denne filen?",
    "da": "Er du sikker på, at du vil slette denne fil?",
    "fi": "Haluatko varmasti poistaa tämän tiedoston?",
    "id": "Apakah Anda yakin ingin menghapus file ini?",
    "ms": "Adakah anda pasti mahu memadam fail ini?",
    "ro": "Sigur doriți să ștergeți acest fișier?",
    "hu": "Biztosan törölni szeretnéd ezt a fájlt?",
    "tl": "Sigurado ka bang gusto mong burahin ang file na ito?",
    "sw": "Una uhakika unataka kufuta faili hii?",
}

PRESS_EN = "Press any key to continue and save your game"


def api_code(key: str) -> str:
    """Table keys to API codes: Serbian is "sr" in either script."""
    return "sr" if key == "sr-Cyrl" else key


def primary(key: str) -> str:
    return api_code(key).split("-")[0]


# -- correct translations pass -----------------------------------------------


@pytest.mark.parametrize("table", [PRESS_ANY_KEY, DELETE_FILE], ids=["press-any-key", "delete-file"])
@pytest.mark.parametrize("target", sorted(set(PRESS_ANY_KEY) - {"en"}))
def test_correct_translation_from_english_passes(table: dict[str, str], target: str) -> None:
    assert check_translation(table["en"], table[target], "en", api_code(target)) is None


@pytest.mark.parametrize("table", [PRESS_ANY_KEY, DELETE_FILE], ids=["press-any-key", "delete-file"])
@pytest.mark.parametrize("source", sorted(set(PRESS_ANY_KEY) - {"en"}))
def test_correct_translation_into_english_passes(table: dict[str, str], source: str) -> None:
    assert check_translation(table[source], table["en"], api_code(source), "en") is None


@pytest.mark.parametrize("table", [PRESS_ANY_KEY, DELETE_FILE], ids=["press-any-key", "delete-file"])
def test_every_direction_between_correct_translations_passes(table: dict[str, str]) -> None:
    """Property over the whole table: any language into any other, about 1,300 pairs."""
    failures = [
        (source, target, reason)
        for source in table
        for target in table
        if primary(source) != primary(target)
        and (reason := check_translation(table[source], table[target], api_code(source), api_code(target)))
    ]
    assert failures == []


@pytest.mark.parametrize(
    ("source", "output", "source_lang", "target_lang"),
    [
        # short UI strings may stay the same or shrink
        ("OK", "OK", "en", "de"),
        ("OK", "OK", "en", "ja"),
        ("OK", "OK", "en", "ru"),
        ("Menu", "Menu", "en", "fr"),
        ("Menu", "Menü", "en", "tr"),
        ("Sound volume", "Lautstärke", "en", "de"),
        ("Sound volume", "Громкость", "en", "ru"),
        ("Sound volume", "音量", "en", "zh"),
        ("Sound volume", "音量", "en", "ja"),
        ("Sound volume", "음량", "en", "ko"),
        ("Okay", "OK", "en", "ru"),
        ("Confirm", "OK", "en", "zh"),
        ("Level 5", "Level 5", "en", "de"),
        ("2024", "2024", "en", "ar"),
        ("Kilometres per hour", "km/h", "en", "de"),
        ("ATK/DEF/SPD up", "Angriff/Verteidigung/Geschwindigkeit erhöht", "en", "de"),
        # names and titles stay as they are
        ("World of Warcraft", "World of Warcraft", "en", "de"),
        ("New York City", "New York City", "en", "es"),
        ("Steam Workshop", "Steam Workshop", "en", "ru"),
        ("Best of the Best: The Ultimate Collection", "Best of the Best: Die ultimative Sammlung", "en", "de"),
        (
            "Marketing Manager, Sales and Business Development",
            "Marketing Manager, Sales und Business Development",
            "en",
            "de",
        ),
        ("Open Steam Workshop", "Откройте Steam Workshop", "en", "ru"),
        ("Launch World of Warcraft", "Запустите World of Warcraft", "en", "ru"),
        # addresses, file names and identifiers are not language
        ("https://example.com/path/to/the/page", "https://example.com/path/to/the/page", "en", "de"),
        ("https://example.com/path/to/the/page", "https://example.com/path/to/the/page", "en", "ru"),
        ("support@example.com", "support@example.com", "en", "ja"),
        ("player_name_label", "player_name_label", "en", "zh"),
        ("Visit www.example.com for more", "Посетите www.example.com, чтобы узнать больше", "en", "ru"),
        ("Open config.yaml to change the settings", "打开 config.yaml 以更改设置", "en", "zh"),
        # loanwords and brand names inside a real translation
        ("Connect to the server via Wi-Fi", "Wi-Fi経由でサーバーに接続します", "en", "ja"),
        ("Connect to the server via Wi-Fi", "通过 Wi-Fi 连接到服务器", "en", "zh"),
        ("Connect to the server via Wi-Fi", "Подключитесь к серверу через Wi-Fi", "en", "ru"),
        ("Connect to the server via Wi-Fi", "Wi-Fi를 통해 서버에 연결합니다", "en", "ko"),
        ("Open the Steam Workshop in your browser", "Öffne den Steam Workshop in deinem Browser", "en", "de"),
        ("Speed: 120 km/h", "Скорость: 120 km/h", "en", "ru"),
        ("The team has put the release trailer online", "Das Team hat den Release-Trailer online gestellt", "en", "de"),
        (
            "Join our Discord server for news and giveaways",
            "Tritt unserem Discord-Server für News und Giveaways bei",
            "en",
            "de",
        ),
        ("Download the latest update for this game now", "Download update terbaru untuk game ini sekarang", "en", "id"),
        (
            "Download the latest update for this game now",
            "Muat turun update terkini untuk game ini sekarang",
            "en",
            "ms",
        ),
        (
            "Click the Settings button to update the app",
            "I-click ang Settings button para i-update ang app",
            "en",
            "tl",
        ),
        ("Click the Settings button to update the app", "Klik op de Settings-knop om de app te updaten", "en", "nl"),
        ("The new game update is available online", "Il nuovo update del gioco è disponibile online", "en", "it"),
        ("The best gaming smartphone right now", "Le meilleur smartphone gaming du moment", "en", "fr"),
        ("United Nations Security Council", "国際連合安全保障理事会", "en", "ja"),
        # into English, from languages sharing its alphabet
        ("Hola, ¿cómo estás hoy, amigo mío?", "Hello, how are you today, my friend?", "es", "en"),
        ("Hallo, wie geht es dir heute, mein Freund?", "Hello, how are you today, my friend?", "de", "en"),
        # close kin is never told apart by identification
        (PRESS_ANY_KEY["hr"], PRESS_ANY_KEY["hr"], "sr", "hr"),
        (DELETE_FILE["no"], DELETE_FILE["da"], "no", "da"),
        (PRESS_ANY_KEY["id"], PRESS_ANY_KEY["id"], "ms", "id"),
        ("Selamat datang kembali ke permainan ini", "Selamat datang kembali ke permainan ini", "id", "ms"),
        (DELETE_FILE["es"], DELETE_FILE["pt"], "es", "pt-BR"),
        # localisation into a variant of the source's own language is no echo
        (PRESS_EN, PRESS_EN, "en", "en-GB"),
        # variants identify by their primary
        (PRESS_EN, PRESS_ANY_KEY["pt"], "en-US", "pt-BR"),
        (PRESS_EN, PRESS_ANY_KEY["zh-TW"], "en", "zh-TW"),
        (PRESS_EN, PRESS_ANY_KEY["fr"], "en", "fr-CA"),
        (PRESS_EN, PRESS_ANY_KEY["es"], "en", "es-MX"),
        (PRESS_EN, PRESS_ANY_KEY["nl"], "en", "nl-BE"),
        (PRESS_EN, PRESS_ANY_KEY["zh"], "en", "zh-CN"),
        # sentinels in any order, damaged but readable ones included
        ("<x0/>Hello world<x1/>", "<x1/>Hallo Welt<x0/>", "en", "de"),
        ("<x0/>Hello world", "< x0 />Hallo Welt", "en", "de"),
        ("<x0/>Hello world", "<X0>Hallo Welt", "en", "de"),
        # nothing but sentinels and punctuation on both sides
        ("<x0/> - <x1/>", "<x1/> - <x0/>", "en", "de"),
        ("<x0/>", "<x0/>", "en", "ja"),
        ("...", "…", "en", "fr"),
        ("", "", "en", "fr"),
    ],
)
def test_legitimate_answers_pass(source: str, output: str, source_lang: str, target_lang: str) -> None:
    assert check_translation(source, output, source_lang, target_lang) is None


# -- failures are named ------------------------------------------------------

GERMAN = PRESS_ANY_KEY["de"]


@pytest.mark.parametrize(
    ("source", "output", "source_lang", "target_lang", "reason"),
    [
        # the source handed back, verbatim or with punctuation and case touched
        (PRESS_EN, PRESS_EN, "en", "de", "echo"),
        (PRESS_EN, "Press any key to continue, and save your game!", "en", "de", "echo"),
        (PRESS_EN, "PRESS ANY KEY TO CONTINUE AND SAVE YOUR GAME", "en", "de", "echo"),
        ("Press any key", "Press any key.", "en", "fr", "echo"),
        (PRESS_EN, PRESS_EN, "en", "ru", "echo"),
        (PRESS_EN, PRESS_EN, "en", "zh", "echo"),
        (GERMAN, GERMAN, "de", "en", "echo"),
        ("Open config.yaml and edit the player name", "Open config.yaml and edit the player name", "en", "de", "echo"),
        (DELETE_FILE["da"], DELETE_FILE["da"], "da", "no", "echo"),
        (PRESS_ANY_KEY["ja"], PRESS_ANY_KEY["ja"], "ja", "zh", "echo"),
        # barely edited source text: the source language wins identification
        (PRESS_EN, "Press any key to continue and then save your game", "en", "de", "language"),
        (PRESS_EN, "Press a key to continue and save the game", "en", "de", "language"),
        # a sentence-initial capital plus a kept name is not a title to discount
        (
            "The train to London leaves in twenty minutes.",
            "The train to London leaves in 20 minutes.",
            "en",
            "de",
            "language",
        ),
        (PRESS_EN, "Press Taste to continue und save dein Spiel", "en", "de", "language"),
        (PRESS_EN, "Pulsa any key para continuar and save tu juego", "en", "es", "language"),
        (PRESS_EN, "Press a key to go on and store your progress", "en", "sr", "language"),
        (PRESS_EN, "Press a key to go on and store your progress", "en", "no", "language"),
        (PRESS_EN, "Press a key to go on and store your progress", "en", "ms", "language"),
        (GERMAN, "Drücke irgendeine Taste, um weiterzumachen und dein Spiel zu sichern.", "de", "fr", "language"),
        # the wrong script
        (PRESS_EN, PRESS_ANY_KEY["ja"], "en", "zh", "language"),
        (PRESS_EN, "任意のキーを押して続行", "en", "zh-TW", "language"),
        (PRESS_EN, "Press a key to go on and store your progress", "en", "ru", "language"),
        (PRESS_EN, "Nazhmite lyubuyu klavishu, chtoby prodolzhit i sokhranit igru", "en", "ru", "language"),
        (PRESS_EN, PRESS_ANY_KEY["ru"], "en", "de", "language"),
        (PRESS_EN, PRESS_ANY_KEY["zh"], "en", "ko", "language"),
        (PRESS_EN, PRESS_ANY_KEY["hi"], "en", "ar", "language"),
        (PRESS_EN, PRESS_ANY_KEY["de"], "en", "el", "language"),
        (PRESS_ANY_KEY["zh"], PRESS_ANY_KEY["zh"] + " ok", "zh", "en", "language"),
        ("保存游戏并继续", "保存游戏并继续", "zh", "en", "echo"),
        ("保存游戏并继续", "保存游戏并继续吧", "zh", "en", "language"),
        (PRESS_EN, "Нажмите press any key to continue", "en", "ru", "language"),
        (PRESS_EN, "按任意键继续并保存游戏，然后返回主菜单，再选择新的存档位置。", "en", "ja", "language"),
        # sentinels lost, added or repeated
        ("Press <x0/> to continue", "Drücke zum Fortfahren", "en", "de", "markup"),
        ("Press <x0/> to continue", "Drücke <x0/> zum Fortfahren <x0/>", "en", "de", "markup"),
        ("Press <x0/> to continue", "Drücke <x1/> zum Fortfahren", "en", "de", "markup"),
        ("<x0/>Save<x1/> the game", "<x0/>Speichere<x1/> das Spiel<x2/>", "en", "de", "markup"),
        ("<x0/>Hello world", "<x0>Hallo Welt</x0>", "en", "de", "markup"),
        ("<x0/> - <x1/>", "<x0/> -", "en", "de", "markup"),
        # runaway repetition and truncation
        (PRESS_EN, " ".join([GERMAN] * 5), "en", "de", "length"),
        (PRESS_EN, GERMAN + " Spiel" * 40, "en", "de", "length"),
        (PRESS_EN, GERMAN[: len(GERMAN) // 10], "en", "de", "length"),
        (PRESS_EN, "".join([PRESS_ANY_KEY["zh"]] * 5), "en", "zh", "length"),
        (PRESS_EN, PRESS_ANY_KEY["zh"][:1], "en", "zh", "length"),
        (PRESS_ANY_KEY["ja"], "Press", "ja", "en", "length"),
        # nothing left
        (PRESS_EN, "", "en", "de", "empty"),
        (PRESS_EN, "   ", "en", "de", "empty"),
        (PRESS_EN, "…", "en", "de", "empty"),
        ("<x0/>Hello world", "<x0/>", "en", "de", "empty"),
        ("<x0/>Hello world", "", "en", "de", "empty"),
    ],
)
def test_broken_answers_are_named(source: str, output: str, source_lang: str, target_lang: str, reason: str) -> None:
    assert reason in REASONS
    assert check_translation(source, output, source_lang, target_lang) == reason


def test_reasons_are_the_documented_ones() -> None:
    assert REASONS == ("markup", "echo", "length", "language", "empty")


# -- properties ---------------------------------------------------------------

LANGUAGES = sorted(set(PRESS_ANY_KEY) - {"en"})


def with_sentinels(text: str, positions: list[int], order: list[int]) -> str:
    """text with sentinels order[i] inserted at word boundary positions[i]."""
    words = text.split(" ")
    for slot, number in sorted(zip(positions, order), reverse=True):
        words.insert(slot % (len(words) + 1), SENTINEL.format(number))
    return " ".join(words)


@FAST
@given(
    st.sampled_from(LANGUAGES),
    st.lists(st.integers(0, 50), min_size=1, max_size=5),
    st.randoms(use_true_random=False),
)
def test_sentinels_anywhere_keep_a_correct_translation_passing(
    target: str,
    positions: list[int],
    rnd: random.Random,
) -> None:
    numbers = list(range(len(positions)))
    source = with_sentinels(PRESS_ANY_KEY["en"], positions, numbers)
    shuffled = numbers[:]
    rnd.shuffle(shuffled)
    output = with_sentinels(PRESS_ANY_KEY[target], [rnd.randrange(50) for _ in numbers], shuffled)
    assert check_translation(source, output, "en", api_code(target)) is None


@FAST
@given(
    st.sampled_from(LANGUAGES),
    st.lists(st.integers(0, 50), min_size=1, max_size=5),
    st.data(),
)
def test_a_lost_or_repeated_sentinel_is_markup(target: str, positions: list[int], data: st.DataObject) -> None:
    numbers = list(range(len(positions)))
    source = with_sentinels(PRESS_ANY_KEY["en"], positions, numbers)
    victim = data.draw(st.sampled_from(numbers))
    lost = [n for n in numbers if n != victim]
    repeated = [*numbers, victim]
    for changed in (lost, repeated):
        output = with_sentinels(PRESS_ANY_KEY[target], positions[: len(changed)] + [7] * len(changed), changed)
        assert check_translation(source, output, "en", api_code(target)) == "markup"


@FAST
@given(st.sampled_from(LANGUAGES), st.sampled_from([PRESS_ANY_KEY, DELETE_FILE]), st.integers(5, 12))
def test_runaway_repetition_is_length(target: str, table: dict[str, str], times: int) -> None:
    output = " ".join([table[target]] * times)
    assert check_translation(table["en"], output, "en", api_code(target)) == "length"


@pytest.mark.parametrize("target", LANGUAGES)
def test_truncation_to_a_tenth_is_length(target: str) -> None:
    long_source = f"{PRESS_ANY_KEY['en']} {DELETE_FILE['en']}"
    full = f"{PRESS_ANY_KEY[target]} {DELETE_FILE[target]}"
    assert check_translation(long_source, full, "en", api_code(target)) is None
    assert check_translation(long_source, full[: max(1, len(full) // 10)], "en", api_code(target)) == "length"


@pytest.mark.parametrize("target", [t for t in LANGUAGES if primary(t) not in ("en",)])
def test_the_english_source_handed_back_never_passes(target: str) -> None:
    for table in (PRESS_ANY_KEY, DELETE_FILE):
        assert check_translation(table["en"], table["en"], "en", api_code(target)) in ("echo", "language")


# -- batch and concurrency ------------------------------------------------------


def test_batch_keeps_order() -> None:
    sources = [PRESS_EN, PRESS_EN, "OK", "Press <x0/> now"]
    outputs = [GERMAN, PRESS_EN, "OK", "Jetzt drücken"]
    assert check_translations(sources, outputs, "en", "de") == [None, "echo", None, "markup"]


def test_batch_needs_one_output_per_source() -> None:
    with pytest.raises(ValueError):
        check_translations(["a", "b"], ["a"], "en", "de")


def test_threads_share_one_identifier() -> None:
    cases = [(PRESS_EN, PRESS_ANY_KEY[t], api_code(t)) for t in LANGUAGES] * 8
    cases += [(PRESS_EN, "Press a key to continue and save the game", "de")] * 40

    def judge(case: tuple[str, str, str]) -> str | None:
        return check_translation(case[0], case[1], "en", case[2])

    with ThreadPoolExecutor(max_workers=8) as pool:
        verdicts = list(pool.map(judge, cases))
    assert verdicts == [None] * (len(cases) - 40) + ["language"] * 40
