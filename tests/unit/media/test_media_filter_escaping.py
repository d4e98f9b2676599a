"""The subtitles filter string survives ffmpeg's two parsing levels for any path.

``parse_filter`` below re-implements, in Python, what libavfilter does with a
``-vf`` string: the graph parser takes the filter's arguments with
``av_get_token(..., "[],;")``, then each ``key=value`` pair's value is read
with ``av_get_token(..., ":")``. A path that comes back unchanged is a path
ffmpeg opens.
"""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from engines.media.ffmpeg import escape_filtergraph, quote_filter_value, subtitles_filter

_WHITESPACE = " \n\t\r"


def av_get_token(text: str, term: str) -> tuple[str, str]:
    """libavutil's ``av_get_token``: (token, rest starting at the terminator)."""
    p = len(text) - len(text.lstrip(_WHITESPACE))
    out: list[str] = []
    end = 0
    while p < len(text) and text[p] not in term:
        c = text[p]
        p += 1
        if c == "\\" and p < len(text):
            out.append(text[p])
            p += 1
            end = len(out)
        elif c == "'":
            while p < len(text) and text[p] != "'":
                out.append(text[p])
                p += 1
            if p < len(text):
                p += 1
                end = len(out)
        else:
            out.append(c)
    while len(out) > end and out[-1] in _WHITESPACE:
        out.pop()
    return "".join(out), text[p:]


def parse_filter(spec: str) -> tuple[str, dict[str, str]]:
    """A single-filter graph ``name=args`` → (name, options), as libavfilter reads it."""
    name, _, rest = spec.partition("=")
    args, after = av_get_token(rest, "[],;")
    assert after == "", f"graph parser stopped early at {after!r}"
    options: dict[str, str] = {}
    while args:
        key, sep, args = args.partition("=")
        assert sep, f"no key=value in {key!r}"
        options[key], args = av_get_token(args, ":")
        args = args[1:]
    return name, options


def test_quote_and_escape_exact_form() -> None:
    assert quote_filter_value("a b:c") == "'a b:c'"
    assert quote_filter_value("it's") == "'it'\\''s'"
    assert escape_filtergraph("x='a,b'[c];d\\") == "x=\\'a\\,b\\'\\[c\\]\\;d\\\\"


def test_path_with_spaces_colon_and_quotes_round_trips() -> None:
    path = "/data/My Videos: 'best' [2024], part;1\\x.ass"
    name, options = parse_filter(subtitles_filter(path))
    assert name == "subtitles"
    assert options == {"filename": path}


def test_fonts_dir_is_a_second_option() -> None:
    _, options = parse_filter(subtitles_filter("/s/a:b.ass", fonts_dir="/fonts dir/x,y"))
    assert options == {"filename": "/s/a:b.ass", "fontsdir": "/fonts dir/x,y"}


def test_relative_paths_become_absolute() -> None:
    _, options = parse_filter(subtitles_filter("subs:1.ass"))
    assert options["filename"] == os.fspath(Path("subs:1.ass").absolute())
    assert os.path.isabs(options["filename"])


@given(st.text(st.characters(codec="utf-8", exclude_characters="\x00/"), min_size=1, max_size=40))
def test_any_file_name_round_trips(name: str) -> None:
    path = os.fspath(Path("/tmp/subs dir", name + ".ass"))
    _, options = parse_filter(subtitles_filter(path, fonts_dir="/tmp/" + name))
    assert options["filename"] == path
    assert options["fontsdir"] == os.fspath(Path("/tmp/" + name))
