"""Benchmark: a translation memory teaches a game's terms, and a memory with nothing relevant costs no quality.

Data (``loadtests/data/memory/``, written apart from the development set):

- ``game_memory.<lang>.tsv``: English → target pairs of game strings (UI labels, tutorial lines, dialogue) that use
  one studio term per concept, chosen where a plausible alternative exists (es "quest log" → "diario de misiones");
- ``concepts.<lang>.tsv``: concept, the term, and the forms that count as using it (plural, inflected);
- ``game_test.tsv``: new English sentences (concept, sentence, content type), each using one taught concept, none
  of them in a memory or the devset;
- ``unrelated_memory.<lang>.tsv``: ~200 pairs of kitchen appliance manuals and gardening advice.

For each target language the script creates the game memory through ``POST /v1/memories`` (replacing one of the
same name left by an earlier run), translates every test sentence with ``POST /v1/game/localization`` without and
with ``memory_id``, and counts the sentences whose translation uses the concept's term: one of its accepted forms,
as a whole word (after NFC normalisation, case folding and typographic apostrophes and spaces made plain). Then, on
a sample of the general devset (``configs/devset``, content type dialogue), it compares chrF without a memory and
with the unrelated one (corpus chrF, sacrebleu; a paired bootstrap gives the 95 % interval of the difference).
Goals (issue 43): ≥ 80 % of the test sentences use the term with the memory; no chrF drop beyond noise.

    .venv/bin/python loadtests/bench_memory_terms.py                          # starts configs/local.yaml's service
    .venv/bin/python loadtests/bench_memory_terms.py --limit 10 --no-devset   # a quick look
    .venv/bin/python loadtests/bench_memory_terms.py --url http://127.0.0.1:8000 --token TOKEN --languages es,de
"""

from __future__ import annotations

import argparse
import contextlib
import random
import re
import sys
import tempfile
import time
import unicodedata
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loadtests.bench_api import make_token  # noqa: E402
from loadtests.local_profile import mediatrans_args, run_llm_app, start_ray  # noqa: E402
from tests.support.services import free_port, redis_server, wait_http_ok  # noqa: E402

DATA = ROOT / "loadtests" / "data" / "memory"
DEVSET = ROOT / "configs" / "devset"
GOAL = 0.80
BOOTSTRAP_ROUNDS = 1000


@dataclass(frozen=True)
class Concept:
    name: str
    term: str
    forms: tuple[str, ...]


@dataclass(frozen=True)
class TermSentence:
    concept: str
    text: str
    content_type: str


@dataclass(frozen=True)
class Answer:
    text: str
    from_memory: bool = False
    error: str | None = None


def _rows(path: Path, cells: int) -> list[list[str]]:
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    bad = [row for row in rows if len(row) != cells or not all(cell.strip() for cell in row)]
    if bad:
        raise ValueError(f"{path}: rows without {cells} non-empty cells: {bad[:3]}")
    return rows


def read_pairs(path: Path) -> list[tuple[str, str]]:
    """``source<TAB>target`` rows."""
    return [(source, target) for source, target in _rows(path, 2)]


def read_concepts(lang: str, folder: Path = DATA) -> dict[str, Concept]:
    """Concept → its term and accepted forms in ``lang`` (the term counts too)."""
    concepts = {}
    for name, term, forms in _rows(folder / f"concepts.{lang}.tsv", 3):
        concepts[name] = Concept(name, term, tuple(dict.fromkeys([term, *forms.split("|")])))
    return concepts


def read_tests(folder: Path = DATA) -> list[TermSentence]:
    return [TermSentence(concept, text, content_type) for concept, text, content_type in _rows(folder / "game_test.tsv", 3)]


def data_languages(folder: Path = DATA) -> list[str]:
    """Targets with a game memory, a concept list and an unrelated memory."""
    langs = {p.name.split(".")[1] for p in folder.glob("game_memory.*.tsv")}
    return sorted(lang for lang in langs if all((folder / f"{k}.{lang}.tsv").exists() for k in ("concepts", "unrelated_memory")))


def normalise(text: str) -> str:
    """NFC, case-folded, typographic apostrophes, spaces and hyphens made plain, whitespace collapsed."""
    text = unicodedata.normalize("NFC", text)
    for fancy, plain in (("\u2019", "'"), ("\u02bc", "'"), ("\u00a0", " "), ("\u202f", " "), ("\u2011", "-")):
        text = text.replace(fancy, plain)
    return " ".join(text.split()).casefold()


def uses_term(translation: str, concept: Concept) -> bool:
    """The translation contains one of the concept's accepted forms as a whole word (or words)."""
    text = normalise(translation)
    return any(re.search(rf"(?<!\w){re.escape(normalise(form))}(?!\w)", text) for form in concept.forms)


def load_devset(lang: str, folder: Path = DEVSET) -> list[tuple[str, str]]:
    """(English line, reference) pairs of the devset for ``lang`` (a regional code reads its language's file)."""
    english = [row.split("\t")[2] for row in (folder / "en.tsv").read_text(encoding="utf-8").splitlines() if row]
    references = (folder / f"{lang.split('-')[0].lower()}.txt").read_text(encoding="utf-8").splitlines()
    if len(references) != len(english):
        raise ValueError(f"devset {lang}: {len(references)} lines, en.tsv {len(english)}")
    return list(zip(english, references))


def devset_sample(lang: str, n: int, seed: int = 43) -> list[tuple[str, str]]:
    pairs = load_devset(lang)
    return [pairs[i] for i in sorted(random.Random(seed).sample(range(len(pairs)), min(n, len(pairs))))]


def chrf(hypotheses: list[str], references: list[str]) -> float:
    import sacrebleu

    return float(sacrebleu.corpus_chrf(hypotheses, [references]).score)


def paired_bootstrap(base: list[str], other: list[str], refs: list[str], rounds: int = BOOTSTRAP_ROUNDS) -> tuple[float, float]:
    """95 % interval of corpus chrF(other) − chrF(base) over sentence resamples (the same resample for both)."""
    rng = random.Random(7)
    deltas = []
    for _ in range(rounds):
        idx = [rng.randrange(len(refs)) for _ in refs]
        r, b, o = ([xs[i] for i in idx] for xs in (refs, base, other))
        deltas.append(chrf(o, r) - chrf(b, r))
    deltas.sort()
    return deltas[int(0.025 * rounds)], deltas[min(rounds - 1, int(0.975 * rounds))]


def sentence_wins(base: list[str], other: list[str], refs: list[str]) -> tuple[int, int, int]:
    """Sentences whose chrF is higher, lower, equal with ``other``."""
    import sacrebleu

    up = down = 0
    for b, o, r in zip(base, other, refs):
        sb, so = sacrebleu.sentence_chrf(b, [r]).score, sacrebleu.sentence_chrf(o, [r]).score
        up, down = up + (so > sb + 1e-9), down + (so < sb - 1e-9)
    return up, down, len(refs) - up - down


class Api:
    """The few calls the benchmark makes, with a retry on 429/503."""

    def __init__(self, base: str, token: str, timeout_s: float = 600) -> None:
        self.client = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=timeout_s)

    def _call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        for attempt in range(4):
            response = self.client.request(method, path, **kwargs)
            if response.status_code not in (429, 503) or attempt == 3:
                return response
            time.sleep(min(30.0, float(response.headers.get("retry-after") or 2**attempt)))
        raise AssertionError("unreachable")

    def memories(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        params: dict[str, str] = {}
        while True:
            response = self._call("GET", "/v1/memories", params=params)
            response.raise_for_status()
            page = response.json()
            out += page.get("memories", [])
            if not page.get("next_cursor"):
                return out
            params = {"cursor": page["next_cursor"]}

    def delete_memory(self, memory_id: str) -> None:
        response = self._call("DELETE", f"/v1/memories/{memory_id}")
        if response.status_code not in (200, 204, 404):
            response.raise_for_status()

    def create_memory(self, name: str, lang: str, pairs: list[tuple[str, str]]) -> str:
        """A fresh memory of ``pairs`` named ``name`` (one of that name from an earlier run is deleted first)."""
        for old in self.memories():
            if old.get("name") == name:
                self.delete_memory(old["memory_id"])
        body = {
            "name": name,
            "source_lang": "en",
            "target_lang": lang,
            "entries": [{"source": s, "target": t} for s, t in pairs],
        }
        response = self._call("POST", "/v1/memories", json=body)
        if response.status_code >= 400:
            raise RuntimeError(f"POST /v1/memories {name}: {response.status_code} {response.text[:300]}")
        return str(response.json()["memory_id"])

    def translate(self, text: str, content_type: str, lang: str, memory_id: str | None) -> Answer:
        body: dict[str, Any] = {"text": text, "content_type": content_type, "source_lang": "en", "target_langs": [lang]}
        if memory_id:
            body["memory_id"] = memory_id
        try:
            response = self._call("POST", "/v1/game/localization", json=body)
        except httpx.HTTPError as exc:
            return Answer("", error=type(exc).__name__)
        if response.status_code != 200:
            return Answer("", error=f"{response.status_code} {response.text[:120]}")
        answer = response.json()
        marks = (answer.get("from_memory") or {}).get(lang)
        return Answer(str(answer.get("translations", {}).get(lang, "")), from_memory=bool(marks))


@dataclass
class TermResult:
    hits_without: int = 0
    hits_with: int = 0
    total: int = 0
    verbatim: int = 0
    errors: int = 0


def run_terms(api: Api, pool: ThreadPoolExecutor, lang: str, tests: list[TermSentence], show: int) -> TermResult:
    concepts = read_concepts(lang)
    memory_id = api.create_memory(f"bench-game-{lang}", lang, read_pairs(DATA / f"game_memory.{lang}.tsv"))
    try:
        plain = list(pool.map(lambda t: api.translate(t.text, t.content_type, lang, None), tests))
        taught = list(pool.map(lambda t: api.translate(t.text, t.content_type, lang, memory_id), tests))
    finally:
        api.delete_memory(memory_id)
    result = TermResult(total=len(tests))
    misses = []
    for test, a, b in zip(tests, plain, taught):
        concept = concepts[test.concept]
        result.hits_without += uses_term(a.text, concept)
        hit = uses_term(b.text, concept)
        result.hits_with += hit
        result.verbatim += b.from_memory
        result.errors += (a.error is not None) + (b.error is not None)
        if not hit:
            misses.append(f"    {test.concept!r} → {concept.term!r}: {test.text!r} → {b.text or b.error!r}")
    if misses and show:
        print(f"  {lang}: {len(misses)} sentences without the term with the memory, e.g.:\n" + "\n".join(misses[:show]))
    return result


@dataclass
class ChrfResult:
    without: float
    with_memory: float
    interval: tuple[float, float]
    wins: tuple[int, int, int]
    errors: int


def run_devset(api: Api, pool: ThreadPoolExecutor, lang: str, n: int) -> ChrfResult:
    pairs = devset_sample(lang, n)
    memory_id = api.create_memory(f"bench-unrelated-{lang}", lang, read_pairs(DATA / f"unrelated_memory.{lang}.tsv"))
    try:
        plain = list(pool.map(lambda p: api.translate(p[0], "dialogue", lang, None), pairs))
        other = list(pool.map(lambda p: api.translate(p[0], "dialogue", lang, memory_id), pairs))
    finally:
        api.delete_memory(memory_id)
    refs = [ref for _, ref in pairs]
    base, with_memory = [a.text for a in plain], [a.text for a in other]
    errors = sum(a.error is not None for a in plain + other)
    return ChrfResult(
        chrf(base, refs), chrf(with_memory, refs), paired_bootstrap(base, with_memory, refs),
        sentence_wins(base, with_memory, refs), errors,
    )  # fmt: skip


@contextlib.contextmanager
def local_service() -> Iterator[tuple[str, str]]:
    """Redis, Ray and configs/local.yaml's two Serve applications on a free port; yields (base URL, token)."""
    import ray
    from ray import serve

    from serve_app.app import build_app

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp, redis_server(Path(tmp)) as redis:
        start_ray()
        try:
            serve.start(http_options={"host": "127.0.0.1", "port": port})
            run_llm_app()
            serve.run(build_app(mediatrans_args(port, redis_url=redis.url)), name="mediatrans", route_prefix="/")
            wait_http_ok(f"{base}/readyz", 600)
            yield base, make_token(redis.url)
        finally:
            serve.shutdown()
            ray.shutdown()


def report(terms: dict[str, TermResult], scores: dict[str, ChrfResult]) -> None:
    print("\n| target | sentences | term used, no memory | with the memory | difference | verbatim | errors |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    total = TermResult()
    for r in terms.values():
        for field in ("hits_without", "hits_with", "total", "verbatim", "errors"):
            setattr(total, field, getattr(total, field) + getattr(r, field))
    for lang, r in [*terms.items(), *([("all", total)] if len(terms) > 1 else [])]:
        a, b = r.hits_without / max(1, r.total), r.hits_with / max(1, r.total)
        print(f"| {lang} | {r.total} | {a:.0%} | {b:.0%} | {100 * (b - a):+.0f} pts | {r.verbatim} | {r.errors} |")
    if terms:
        share = total.hits_with / max(1, total.total)
        verdict = "met" if share >= GOAL and all(r.hits_with / max(1, r.total) >= GOAL for r in terms.values()) else "NOT met"
        print(f"goal: >= {GOAL:.0%} with the memory, overall and per target: {verdict} ({share:.1%} overall)")
    if scores:
        print("\n| target | devset lines | chrF, no memory | with the unrelated memory | difference | 95 % interval "
              "| sentences up / down / same | errors |")  # fmt: skip
        print("| --- | ---: | ---: | ---: | ---: | --- | --- | ---: |")
        for lang, s in scores.items():
            low, high = s.interval
            print(
                f"| {lang} | {sum(s.wins)} | {s.without:.1f} | {s.with_memory:.1f} | {s.with_memory - s.without:+.1f} "
                f"| [{low:+.1f}, {high:+.1f}] | {'/'.join(map(str, s.wins))} | {s.errors} |"
            )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running service (default: start configs/local.yaml's here)")
    parser.add_argument("--token", help="API token for --url")
    parser.add_argument("--languages", default="es,fr,de", help=f"targets (data for: {','.join(data_languages())})")
    parser.add_argument("--limit", type=int, default=None, help="only the first N test sentences")
    parser.add_argument("--devset-n", type=int, default=40, help="devset lines for the chrF check")
    parser.add_argument("--no-devset", action="store_true", help="skip the chrF check")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--show-misses", type=int, default=5, help="print up to N sentences per target missing the term")
    args = parser.parse_args(argv)
    if args.url and not args.token:
        parser.error("--url needs --token")
    languages = [lang.strip() for lang in args.languages.split(",") if lang.strip()]
    missing = sorted(set(languages) - set(data_languages()))
    if missing:
        parser.error(f"no memory data for {', '.join(missing)} in {DATA}")
    tests = read_tests()[: args.limit]
    with contextlib.nullcontext((args.url, args.token)) if args.url else local_service() as (base, token):
        api = Api(base, token)
        terms: dict[str, TermResult] = {}
        scores: dict[str, ChrfResult] = {}
        with ThreadPoolExecutor(args.concurrency) as pool:
            for lang in languages:
                started = time.perf_counter()
                terms[lang] = run_terms(api, pool, lang, tests, args.show_misses)
                print(f"  {lang}: {len(tests)} test sentences twice in {time.perf_counter() - started:.0f} s", flush=True)
                if not args.no_devset:
                    started = time.perf_counter()
                    scores[lang] = run_devset(api, pool, lang, args.devset_n)
                    print(f"  {lang}: devset chrF check in {time.perf_counter() - started:.0f} s", flush=True)
        api.client.close()
    report(terms, scores)


if __name__ == "__main__":
    main()
