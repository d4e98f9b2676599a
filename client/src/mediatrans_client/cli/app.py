"""The ``mediatrans`` command: global options, the shared client, and one error handler for every command."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import click

from mediatrans_client._requests import __version__
from mediatrans_client.cli import config, output
from mediatrans_client.client import Client
from mediatrans_client.errors import MediatransError

F = TypeVar("F", bound=Callable[..., Any])


@dataclass
class Session:
    """What every subcommand gets: settings, ``--json``, and a client made on first use."""

    settings: config.CliSettings
    as_json: bool
    max_attempts: int
    _client: Client | None = field(default=None, repr=False)

    @property
    def client(self) -> Client:
        if self._client is None:
            if not self.settings.base_url:
                raise click.UsageError("No API address: pass --base-url, set MEDIATRANS_BASE_URL, or run `mediatrans configure`.")
            self._client = Client(
                self.settings.base_url,
                self.settings.token,
                timeout=self.settings.timeout,
                max_attempts=self.max_attempts,
                language_cache_path=config.cache_dir() / "languages.json",
            )
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()


def handles_errors(command: F) -> F:
    """Turn every client error into its message, hint and exit code (JSON on stderr with ``--json``)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        session = click.get_current_context().find_object(Session)
        as_json = bool(session and session.as_json)
        try:
            return command(*args, **kwargs)
        except MediatransError as exc:
            raise SystemExit(output.report_error(exc, as_json)) from None
        except config.ConfigError as exc:
            raise SystemExit(output.fail(str(exc), output.EXIT_USAGE, as_json)) from None
        except OSError as exc:
            raise SystemExit(output.fail(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), as_json=as_json)) from None
        except KeyboardInterrupt:
            raise SystemExit(output.fail("interrupted", 130, as_json)) from None

    return wrapper  # type: ignore[return-value]


pass_session = click.make_pass_decorator(Session)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 110})
@click.option("--base-url", metavar="URL", help="API address (default: $MEDIATRANS_BASE_URL, then the config file).")
@click.option("--token", metavar="TOKEN", help="Bearer token (default: $MEDIATRANS_TOKEN, then the config file).")
@click.option("--profile", metavar="NAME", help="Config file profile (default: $MEDIATRANS_PROFILE or 'default').")
@click.option("--timeout", type=click.FloatRange(min=1), help="Seconds per HTTP attempt (default 30).")
@click.option("--retries", type=click.IntRange(0, 20), default=4, show_default=True, help="Retries per request.")
@click.option("--json", "as_json", is_flag=True, help="Print results as JSON on stdout, errors as JSON on stderr.")
@click.version_option(__version__, prog_name="mediatrans")
@click.pass_context
def cli(
    ctx: click.Context,
    base_url: str | None,
    token: str | None,
    profile: str | None,
    timeout: float | None,
    retries: int,
    as_json: bool,
) -> None:
    """Client of the media-translation API: video subtitles and dubbing, voices, TTS, grammar, game text, memories."""
    try:
        settings = config.resolve(base_url, token, timeout, profile)
    except config.ConfigError as exc:
        raise SystemExit(output.fail(str(exc), output.EXIT_USAGE, as_json)) from None
    session = Session(settings=settings, as_json=as_json, max_attempts=retries + 1)
    ctx.obj = session
    ctx.call_on_close(session.close)


@cli.command()
@click.option("--base-url", "url", metavar="URL", help="API address to store.")
@click.option("--token", "secret", metavar="TOKEN", help="Token to store (asked for when neither option is given).")
@click.option("--profile", "profile", default=config.DEFAULT_PROFILE, show_default=True, help="Profile to write.")
def configure(url: str | None, secret: str | None, profile: str) -> None:
    """Store the API address and token in the config file (mode 0600)."""
    if url is None and secret is None:
        url = click.prompt("API base URL", default="http://127.0.0.1:8000")
        secret = click.prompt("Token", hide_input=True, default="", show_default=False) or None
    path = config.config_path()
    config.write_profile(path, profile, {"base_url": url, "token": secret})
    output.note(f"wrote [{profile}] to {path}")


def main() -> None:
    cli(prog_name="mediatrans")
