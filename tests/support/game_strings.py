"""Game strings in every placeholder syntax the translator must keep: ICU MessageFormat and the inline kinds."""

from __future__ import annotations

import re

COINS = "You have {count, plural, =0{no coins} one{# coin} other{{count} coins}} left."
NESTED = "{gender, select, male{He} female{She} other{They}} found {n, plural, one{# sword} other{# swords}}."
ORDINAL = "You finished {place, selectordinal, one{#st} two{#nd} few{#rd} other{#th}} in the race."

#: One string per inline syntax games ship; every span must come back exactly once.
SYNTAXES = {
    "i18next": "Hello {{name}}, open $t(menu.settings) now",
    "printf": "Player %1$s scored %2$d points and %s bonus",
    "dotnet": "Level {0} of {1:N0} unlocked",
    "unity": "Press <color=#ffcc00>Start</color> to <b>play</b>",
    "renpy": "[player_name] says {b}hello{/b} to {color=#f00}you{/color}",
    "html": "Tom &amp; Jerry&#160;are <i>back</i>",
    "newline": "First line\\nSecond line\nThird line",
}

ICU_MESSAGES = {"plural": COINS, "select+plural": NESTED, "selectordinal": ORDINAL}


def shape(message: str) -> list[str]:
    """Argument heads and selectors in order of appearance (what translation must keep)."""
    return re.findall(r"\{\s*\w+\s*,\s*(?:plural|selectordinal|select)\s*,|(?:=\d+|\b\w+)\{", message)
