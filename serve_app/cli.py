"""``mediatrans-admin``: operator commands for accounts, tokens, secrets, limits and status.

Tokens and signing secrets are printed once, when created; only the token's
SHA-256 is stored. Connects to ``$REDIS_URL`` (or ``--redis-url``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
import urllib.request
from collections.abc import Sequence
from typing import Any

from redis.asyncio import Redis

from core import caps
from core.accounts import QUOTA_METRICS, Account, AccountError, AccountStore
from core.errors import ErrorGroup
from core.holdings import holdings
from core.quotas import QuotaLedger
from core.settings import AppArgs

#: Bounds of ``token create --ttl-days``: 1 minute (anything shorter is a typo), and 10 years (Redis' EX stays finite).
MIN_TTL_S = 60
MAX_TTL_DAYS = 3650


def _ttl_days(text: str) -> float:
    """``--ttl-days``: a finite number of days between 1 minute and MAX_TTL_DAYS (0 no longer means never)."""
    try:
        days = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of days") from None
    if not math.isfinite(days) or days > MAX_TTL_DAYS or round(days * 86400) < MIN_TTL_S:
        raise argparse.ArgumentTypeError(f"{text!r}: give 1 minute to {MAX_TTL_DAYS} days (or --no-expiry: never expires)")
    return days


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mediatrans-admin", description=__doc__)
    p.add_argument("--redis-url", default=None, help="default: $REDIS_URL")
    sub = p.add_subparsers(dest="cmd", required=True)

    acct = sub.add_parser("account", help="create, list, show and limit accounts").add_subparsers(dest="action", required=True)
    create = acct.add_parser("create", help="create an account and its first token")
    create.add_argument("name")
    _limit_args(create)
    ensure = acct.add_parser("ensure", help="create the account unless it exists (no token)")
    ensure.add_argument("name")
    acct.add_parser("list")
    show = acct.add_parser("show")
    show.add_argument("name")
    limits = acct.add_parser("set-limits", help="per-account rate limit, monthly quotas and storage caps")
    limits.add_argument("name")
    _limit_args(limits)
    disable = acct.add_parser("disable")
    disable.add_argument("name")
    enable = acct.add_parser("enable")
    enable.add_argument("name")

    tok = sub.add_parser("token", help="issue, list and revoke API tokens").add_subparsers(dest="action", required=True)
    tcreate = tok.add_parser("create")
    tcreate.add_argument("name")
    lifetime = tcreate.add_mutually_exclusive_group()
    lifetime.add_argument(
        "--ttl-days",
        type=_ttl_days,
        default=None,
        help=f"expire after this many days (fractions allowed; at least 1 minute, at most {MAX_TTL_DAYS} days)",
    )
    lifetime.add_argument("--no-expiry", action="store_true", help="never expire (also the default without --ttl-days)")
    tcreate.add_argument("--quiet", action="store_true", help="print only the token")
    tlist = tok.add_parser("list")
    tlist.add_argument("name")
    revoke = tok.add_parser("revoke")
    revoke.add_argument("name")
    revoke.add_argument("token_id", nargs="?", help="token id (tok_…); omit with --all")
    revoke.add_argument("--all", action="store_true")

    secret = sub.add_parser("secret", help="callback signing secret").add_subparsers(dest="action", required=True)
    rotate = secret.add_parser("rotate")
    rotate.add_argument("name")

    status = sub.add_parser("status", help="Redis, accounts and the service's readiness")
    status.add_argument("--base-url", default="http://127.0.0.1:8000")
    return p


def _limit_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rate", type=int, help="requests per minute")
    p.add_argument("--burst", type=int, help="requests allowed at once")
    p.add_argument("--scopes", help="comma-separated endpoint groups the account may use (empty: all)")
    p.add_argument("--voice-slots", type=int, help="cloned voices the account may hold at once (default 10)")
    p.add_argument(
        "--quota",
        action="append",
        default=[],
        metavar="METRIC=N|unlimited",
        help=f"monthly quota; metrics: {', '.join(QUOTA_METRICS)}",
    )
    p.add_argument(
        "--cap",
        action="append",
        default=[],
        metavar="NAME=N|unlimited|default",
        help=f"storage cap (docs/limits.md); names: {', '.join(caps.NAMES)}",
    )


def _apply_limits(account: Account, args: argparse.Namespace) -> None:
    if args.scopes is not None:
        scopes = [g.strip() for g in args.scopes.split(",") if g.strip()]
        unknown = set(scopes) - {g.value for g in ErrorGroup}
        if unknown:
            raise AccountError(f"unknown scopes {sorted(unknown)}; known: {', '.join(g.value for g in ErrorGroup)}")
        account.scopes = scopes
    if args.rate is not None:
        account.rate_per_minute = _positive(args.rate, "--rate")
    if args.burst is not None:
        account.burst = _positive(args.burst, "--burst")
    if args.voice_slots is not None:
        account.voice_slots = _positive(args.voice_slots, "--voice-slots")
    for item in args.quota:
        metric, _, value = item.partition("=")
        if metric not in QUOTA_METRICS:
            raise AccountError(f"unknown quota metric {metric!r}; known: {', '.join(QUOTA_METRICS)}")
        if value == "unlimited":
            account.quotas.pop(metric, None)
        elif value.isdigit():
            account.quotas[metric] = int(value)
        else:
            raise AccountError(f"quota {item!r}: expected METRIC=N or METRIC=unlimited")
    for item in args.cap:
        try:
            name, value = caps.parse(item)
        except ValueError as exc:
            raise AccountError(str(exc)) from None
        if value is None:
            account.caps.pop(name, None)
        else:
            account.caps[name] = value


def _positive(value: int, flag: str) -> int:
    if value < 1:
        raise AccountError(f"{flag} must be at least 1")
    return value


def _public(account: Account) -> dict[str, Any]:
    return {
        "account_id": account.id,
        "name": account.name,
        "rate_per_minute": account.rate_per_minute,
        "burst": account.burst,
        "voice_slots": account.voice_slots,
        "quotas": account.quotas,
        "caps": {name: "unlimited" if value is None else value for name, value in caps.resolve(account).items()},
        "disabled": account.disabled,
        "scopes": account.scopes or "all",
    }


async def _run(args: argparse.Namespace) -> dict[str, Any] | str:
    redis = Redis.from_url(args.redis_url or AppArgs().redis_url, decode_responses=True)
    try:
        return await _dispatch(args, AccountStore(redis), redis)
    finally:
        await redis.aclose()


async def _dispatch(args: argparse.Namespace, store: AccountStore, redis: Redis) -> dict[str, Any] | str:
    key = (args.cmd, getattr(args, "action", None))
    if key == ("account", "create"):
        created = await store.create(args.name)
        _apply_limits(created, args)
        await store.update(created)
        issued = await store.issue_token(created)
        return {**_public(created), "token": issued.token, "token_id": issued.token_id, "signing_secret": created.signing_secret}
    if key == ("account", "ensure"):
        try:
            return _public(await store.find(args.name))
        except AccountError:
            return _public(await store.create(args.name))
    if key == ("account", "list"):
        return {"accounts": [_public(a) for a in await store.list()]}
    account = await store.find(args.name) if hasattr(args, "name") else None
    if key == ("account", "show") and account:
        return {
            **_public(account),
            "usage": await QuotaLedger(redis).usage(account),
            "stored": await holdings(redis, account.id),
            "tokens": await store.tokens(account),
        }
    if key == ("account", "set-limits") and account:
        _apply_limits(account, args)
        await store.update(account)
        return _public(account)
    if key in (("account", "disable"), ("account", "enable")) and account:
        account.disabled = args.action == "disable"
        await store.update(account)
        return _public(account)
    if key == ("token", "create") and account:
        ttl = None if args.ttl_days is None else round(args.ttl_days * 86400)  # --no-expiry or neither flag: never
        issued = await store.issue_token(account, ttl_s=ttl)
        if args.quiet:
            return issued.token
        return {"token": issued.token, "token_id": issued.token_id, "expires_at": issued.expires_at}
    if key == ("token", "list") and account:
        return {
            "tokens": {tid: {k: v for k, v in meta.items() if k != "hash"} for tid, meta in (await store.tokens(account)).items()}
        }
    if key == ("token", "revoke") and account:
        if args.all:
            return {"revoked": await store.revoke_all(account)}
        if not args.token_id:
            raise AccountError("give a token id or --all")
        if not await store.revoke_token(account, args.token_id):
            raise AccountError(f"no token {args.token_id!r} on account {account.name!r}")
        return {"revoked": 1}
    if key == ("secret", "rotate") and account:
        return {"signing_secret": await store.rotate_signing_secret(account)}
    if args.cmd == "status":
        return await _status(store, redis, args.base_url)
    raise AccountError(f"unsupported command {key}")


async def _status(store: AccountStore, redis: Redis, base_url: str) -> dict[str, Any]:
    info = await redis.info("server")
    service: Any
    try:
        with urllib.request.urlopen(f"{base_url}/readyz", timeout=5) as resp:
            service = json.loads(resp.read())
    except Exception as exc:
        service = f"unreachable: {exc}"
    return {"redis": {"version": info.get("redis_version"), "ok": True}, "accounts": len(await store.list()), "service": service}


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        result = asyncio.run(_run(args))
    except AccountError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(result if isinstance(result, str) else json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
