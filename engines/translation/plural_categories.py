"""The plural categories a language needs, from CLDR (through Babel), with a sample count for each.

An English ICU message has ``one`` and ``other``; Russian needs ``one``,
``few``, ``many`` and ``other`` (1 монета, 2 монеты, 5 монет). ``missing``
names the categories a translated message must add and, for each, the
smallest whole number in it, which the translator is shown in place of ``#``
so the noun comes back in that category's form. Categories that only
fractions reach (Czech ``many``), or only counts in the millions (French,
Spanish, Italian and Portuguese ``many``: "1 000 000 de pièces"), have no
sample among the counts a game shows (0 to 200) and are left to ``other``,
as ICU does.
"""

from __future__ import annotations

from functools import lru_cache

from babel import Locale, UnknownLocaleError

from engines.translation.languages import primary

#: Babel's locale for API codes it spells differently.
_LOCALE = {"no": "nb", "tl": "fil"}
#: Whole numbers tried, in order, for a category's sample: 0 and 1 last, since a message often has its own
#: ``=0`` or ``=1`` branch, and "5 coins" shows a form more plainly than "0 coins".
_CANDIDATES = (*range(2, 201), 0, 1)
#: CLDR's order of categories, in which a message lists its branches.
ORDER = ("zero", "one", "two", "few", "many", "other")


@lru_cache(maxsize=128)
def samples(language: str, ordinal: bool = False) -> dict[str, int]:
    """Category → its smallest whole-number sample (``other`` included when a whole number reaches it)."""
    code = primary(language)
    try:
        locale = Locale.parse(_LOCALE.get(code, code))
    except (UnknownLocaleError, ValueError):
        return {}
    rule = locale.ordinal_form if ordinal else locale.plural_form
    found: dict[str, int] = {}
    for number in _CANDIDATES:
        found.setdefault(rule(number), number)
    return found


def missing(language: str, selectors: set[str], ordinal: bool = False) -> dict[str, int]:
    """Categories of ``language`` that ``selectors`` lack (``=0``-style exact matches do not count), with samples."""
    return {category: n for category, n in samples(language, ordinal).items() if category not in selectors}
