"""Sentences the fitter synthesizes: a probe to fit on, others to judge with (never the same text).

Probes are in the sample's language where Kokoro speaks it natively, so the
fitted voice is compared with the sample on comparable phonetics; elsewhere
English. The judge sentences differ from the probe so the score measures the
voice, not one memorised utterance.
"""

from __future__ import annotations

PROBES: dict[str, str] = {
    "en": "She climbed the stairs to watch the ships.",
    "es": "El viejo farero subía las escaleras cada tarde para mirar los barcos.",
    "fr": "Le vieux gardien du phare montait l'escalier chaque soir pour voir les bateaux.",
    "it": "Il vecchio guardiano del faro saliva le scale ogni sera per guardare le navi.",
    "pt": "O velho faroleiro subia a escada todas as tardes para ver os navios.",
    "hi": "बूढ़ा प्रकाशस्तंभ रक्षक हर शाम जहाज़ों को देखने के लिए सीढ़ियाँ चढ़ता था।",
    "ja": "年老いた灯台守は毎晩、船を見るために階段を上りました。",
    "zh": "老灯塔看守人每天晚上都会爬上楼梯去看船。",
}

JUDGES: dict[str, tuple[str, ...]] = {
    "en": ("Please remember to bring your umbrella tomorrow morning.", "We counted seven bright stars above the quiet valley."),
    "es": (
        "Por favor, recuerda traer tu paraguas mañana por la mañana.",
        "Contamos siete estrellas brillantes sobre el valle tranquilo.",
    ),
    "fr": (
        "N'oublie pas d'apporter ton parapluie demain matin.",
        "Nous avons compté sept étoiles brillantes au-dessus de la vallée.",
    ),
    "it": ("Ricordati di portare l'ombrello domani mattina.", "Abbiamo contato sette stelle luminose sopra la valle tranquilla."),
    "pt": (
        "Lembre-se de trazer o seu guarda-chuva amanhã de manhã.",
        "Contamos sete estrelas brilhantes sobre o vale tranquilo.",
    ),
    "hi": ("कृपया कल सुबह अपना छाता लाना याद रखें।", "हमने शांत घाटी के ऊपर सात चमकीले तारे गिने।"),
    "ja": ("明日の朝は傘を忘れずに持ってきてください。", "静かな谷の上に明るい星を七つ数えました。"),
    "zh": ("明天早上请记得带上你的雨伞。", "我们在安静的山谷上空数到了七颗明亮的星星。"),
}


def probe_for(lang: str) -> tuple[str, str]:
    """(language actually used, probe sentence)."""
    return (lang, PROBES[lang]) if lang in PROBES else ("en", PROBES["en"])


#: Extra probes of the enhanced fit (English; timbre, not language, is what is fitted).
MORE_PROBES = ("A warm breeze carried the smell of fresh bread.", "Could you read the numbers on that old clock?")


def probes_for(lang: str, count: int) -> list[tuple[str, str]]:
    """``count`` (language, sentence) probes: the language's own probe first, then English ones."""
    return [probe_for(lang), *(("en", s) for s in MORE_PROBES[: max(0, count - 1)])]


def judges_for(lang: str) -> tuple[str, tuple[str, ...]]:
    return (lang, JUDGES[lang]) if lang in JUDGES else ("en", JUDGES["en"])
