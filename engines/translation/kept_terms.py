"""Names and terms an output kept from its source: evidence of neither a wrong language nor an untranslated answer.

A translation keeps "World of Warcraft", "Wi-Fi" or "Marketing Manager" as
they are; the language checks set such words aside before they weigh what
is left. A longer copied phrase is untranslated text and stays in.
"""

from __future__ import annotations

from engines.translation.text_profile import Profile, word_count


def kept_foreign_words(src: Profile, out: Profile, scripts: frozenset[str]) -> list[bool]:
    """For each output word: is it a name or term kept from the source in a script foreign to the target?

    A run of consecutive output words, each in a foreign script and found in
    the source, is kept when it is short (2 words at most: "Wi-Fi", "OK",
    "Steam Workshop") or runs from a capitalised word to a capitalised word
    ("World of Warcraft"). A longer copied phrase is untranslated text.
    """
    source_folded = src.text.casefold()
    copied = [s not in scripts and w.casefold() in source_folded for s, w in out.words]
    kept = [False] * len(copied)
    i = 0
    while i < len(copied):
        if not copied[i]:
            i += 1
            continue
        j = i
        while j < len(copied) and copied[j]:
            j += 1
        run = out.words[i:j]
        words = sum(word_count(s, w) for s, w in run)
        if words <= 2 or (run[0][1][0].isupper() and run[-1][1][0].isupper()):
            kept[i:j] = [True] * (j - i)
        i = j
    return kept


def without_kept_names(src: Profile, out: Profile) -> list[str]:
    """The output's words less the names and titles it kept from the source.

    A name is a stretch of output words, each a word of the source too, that
    begins and ends with a capitalised word: "Best of the Best", "Marketing
    Manager", the "Press" of an untranslated "Press any key". Such kept
    terms are no evidence of an untranslated answer.
    """
    source_words = {w for _, w in src.words}
    words = [w for _, w in out.words]
    keep = [True] * len(words)
    i = 0
    while i < len(words):
        if words[i] not in source_words:
            i += 1
            continue
        j = i
        while j < len(words) and words[j] in source_words:
            j += 1
        capitalised = [k for k in range(i, j) if words[k][0].isupper()]
        if capitalised and capitalised[0] == 0 and not _title_like(words[: capitalised[-1] + 1]):
            # The first word is capitalised because it starts the sentence ("The train to London ..."),
            # unless the stretch reads like a title ("Best of the Best").
            capitalised = capitalised[1:]
        if capitalised:
            for k in range(capitalised[0], capitalised[-1] + 1):
                keep[k] = False
        i = j
    return [w for w, k in zip(words, keep) if k]


def _title_like(words: list[str]) -> bool:
    """Every word capitalised or a short joining word (of, the, to, de, la...)."""
    return all(w[0].isupper() or len(w) <= 3 for w in words)
