"""Plural rules of a target language, from translate-toolkit's gettext table (`translate.lang.data`)."""

from __future__ import annotations

from functools import lru_cache

from translate.lang import data

# Macrolanguage or legacy codes the table lists under their common member: Norwegian -> Bokmål,
# Tagalog -> Filipino (its standardized form, same plural rule).
ALIASES = {"no": "nb", "tl": "fil"}


@lru_cache(maxsize=256)
def plural_rule(lang: str) -> tuple[int, str]:
    """(nplurals, plural expression) of a language code such as `ru`, `pt-BR`, `zh_Hans` or `sr-Latn`.

    Tries the code itself, then ever shorter prefixes (`es-419` -> `es`), then the regional variants of the
    primary language when they all agree (`zh` -> `zh_CN`, `zh_TW`, ...). Raises ValueError for an unknown
    language: a guessed Plural-Forms header would make gettext pick wrong forms silently.
    """
    code = lang.strip()
    primary_code = data.normalize_code(code).split("-")[0]
    if primary_code in ALIASES:
        code = ALIASES[primary_code]
    while code:
        found = data.get_language(code)
        if found:
            return int(found[1]), str(found[2])
        code = data.simplercode(code)
    primary = data.normalize_code(lang).split("-")[0]
    variants = {(int(v[1]), str(v[2])) for k, v in data.languages.items() if k.split("_")[0].lower() == primary}
    if len(variants) == 1:
        return variants.pop()
    raise ValueError(f"unknown language {lang!r}: cannot tell its number of plural forms")


def plural_forms_header(lang: str) -> str:
    """The value of a PO `Plural-Forms` header for the language."""
    nplurals, expression = plural_rule(lang)
    return f"nplurals={nplurals}; plural={expression};"
