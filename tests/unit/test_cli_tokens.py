"""``mediatrans-admin token create``: ``--ttl-days`` is a real lifetime; never expiring is asked for, not a zero."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

import pytest

from core.accounts import IssuedToken
from serve_app.cli import _dispatch, _parser

#: The documented bounds of --ttl-days (docs/platform.md).
MIN_TTL_S = 60
MAX_TTL_DAYS = 3650


class _Store:
    """The two AccountStore calls ``token create`` makes, recording the lifetime asked for."""

    def __init__(self) -> None:
        self.ttls: list[int | None] = []

    async def find(self, name: str) -> Any:
        return argparse.Namespace(id="acct_1", name=name)

    async def issue_token(self, account: Any, ttl_s: int | None = None) -> IssuedToken:
        self.ttls.append(ttl_s)
        return IssuedToken("tok_x", "mt_x", account.id, None if ttl_s is None else 1000.0 + ttl_s)


def issued_ttl(*flags: str) -> int | None:
    store = _Store()
    args = _parser().parse_args(["token", "create", "acme", "--quiet", *flags])
    assert asyncio.run(_dispatch(args, store, None)) == "mt_x"  # type: ignore[arg-type]
    return store.ttls[0]


@pytest.mark.parametrize("value", ["0", "0.0", "-1", "-0.5", "0.0001", "nan", "inf", "-inf", "1e9", "3651", "abc", ""])
def test_a_bad_ttl_is_a_one_line_error_with_exit_code_2(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        _parser().parse_args(["token", "create", "acme", f"--ttl-days={value}"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("mediatrans-admin token create: error: argument --ttl-days:"), err
    assert "number of days" in last or "--no-expiry" in last


def test_ttl_days_zero_no_longer_means_never() -> None:
    with pytest.raises(SystemExit):
        _parser().parse_args(["token", "create", "acme", "--ttl-days", "0"])


@pytest.mark.parametrize(
    ("flags", "ttl"),
    [
        (["--ttl-days", "30"], 30 * 86400),
        (["--ttl-days", "0.5"], 43200),
        (["--ttl-days", str(1 / 1440)], MIN_TTL_S),
        (["--ttl-days", str(MAX_TTL_DAYS)], MAX_TTL_DAYS * 86400),
        (["--no-expiry"], None),
        ([], None),
    ],
    ids=["30d", "half-day", "one-minute", "maximum", "no-expiry", "default"],
)
def test_the_lifetime_reaches_the_store(flags: list[str], ttl: int | None) -> None:
    assert issued_ttl(*flags) == ttl


def test_ttl_days_and_no_expiry_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        _parser().parse_args(["token", "create", "acme", "--ttl-days", "1", "--no-expiry"])
    assert exited.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
