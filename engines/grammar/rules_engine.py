"""Our own rules for every language: portable checks, confusables, style and wordiness packs.

The rules are data (``configs/grammar/``): ``portable.yaml`` (rule catalogue and
per-language exceptions), ``confusables.yaml`` (unambiguous wrong phrases per
language) and ``packs/<lang>.yaml`` (style and wordiness phrases whose severity
depends on the request's ``domain``). This module only interprets them.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import regex as re
import yaml
from pydantic import Field

from engines.grammar.base import GrammarEngine
from engines.grammar.text import mask, sentences
from engines.grammar.types import CheckOptions, Issue, IssueType, Rule, Severity
from engines.options import EngineOptions, ProjectPath

ENGINE = "grammar-rules"

_WORD = r"\p{L}[\p{L}\p{M}'’]*"
_REPEAT = re.compile(rf"\b({_WORD})(\s+)(\1)\b", re.IGNORECASE)
_MULTI_SPACE = re.compile(r"(?<=\S)  +(?=\S)")
_DOUBLED = re.compile(r"(,,+|;;+|::+|、、+|。。+|(?<!\.)\.\.(?!\.))")
#: After a phrase: not inside a longer word, unless the phrase ends in an apostrophe (l', qu').
_END = r"(?:(?<=['’])|(?![\p{L}\p{M}'’]))"
_EXCLAIM = re.compile(r"[!?]{2,}")
_SPACE_AFTER = re.compile(r"(?<=\p{Ll}[,;])(?=\p{L})|(?<=\p{Ll}{2}[.!?])(?=\p{Lu}\p{Ll})")
_PAIRS = {"(": ")", "[": "]", "{": "}"}


@dataclasses.dataclass(frozen=True)
class PhraseRule:
    """A confusable or a pack rule: phrases to find, with replacements and per-domain severity."""

    id: str
    type: IssueType
    description: str
    message: str
    pattern: re.Pattern[str]
    replacements: dict[str, str | None]
    severity: dict[str, Severity]

    def replacement(self, found: str) -> str | None:
        key = found.lower().replace("’", "'")
        for phrase, replacement in self.replacements.items():
            if phrase.lower() == key or (phrase.startswith("(") and re.fullmatch(phrase, found, re.IGNORECASE)):
                return replacement
        return next(iter(self.replacements.values())) if len(self.replacements) == 1 else None


class RulesOptions(EngineOptions):
    """Where the rule data is and which languages it serves."""

    config_dir: ProjectPath = Field(
        "configs/grammar",
        min_length=1,
        description="Folder with portable.yaml, confusables.yaml and packs/; its parent holds languages.yaml.",
    )
    languages: tuple[str, ...] | None = Field(
        None, description="API codes to serve; unset or empty: every language of the parent's languages.yaml."
    )


class RulesEngine(GrammarEngine):
    """Our rule data, interpreted in process."""

    name = ENGINE
    chunkable = False  # quotes and brackets pair across sentences
    priority = 0
    Options = RulesOptions
    options: RulesOptions

    def __init__(self, options: RulesOptions | None = None, /, **overrides: Any) -> None:
        super().__init__(options, **overrides)
        self._languages: frozenset[str] = frozenset(self.options.languages or ())
        self.portable: dict[str, Any] = {}
        self.phrase_rules: dict[str, list[PhraseRule]] = {}

    def start(self) -> None:
        config_dir = Path(self.options.config_dir)
        self.portable = yaml.safe_load((config_dir / "portable.yaml").read_text(encoding="utf-8"))
        confusables = yaml.safe_load((config_dir / "confusables.yaml").read_text(encoding="utf-8"))
        for lang, entries in confusables.items():
            self.phrase_rules.setdefault(lang, []).extend(_confusable(lang, e) for e in entries)
        for pack in sorted((config_dir / "packs").glob("*.yaml")):
            data = yaml.safe_load(pack.read_text(encoding="utf-8"))
            self.phrase_rules.setdefault(pack.stem, []).extend(_pack_rule(r) for r in data["rules"])
        if not self._languages:
            catalog = yaml.safe_load((config_dir.parent / "languages.yaml").read_text(encoding="utf-8"))
            self._languages = frozenset(str(row["code"]) for row in catalog["languages"])

    def languages(self) -> frozenset[str]:
        return self._languages

    def style_languages(self) -> frozenset[str]:
        """Languages with a style and wordiness pack."""
        return frozenset(
            lang for lang, rules in self.phrase_rules.items() if any(r.type in ("style", "wordiness") for r in rules)
        )

    def rules(self) -> list[Rule]:
        out = [
            Rule(rule_id, spec["type"], spec["severity"], spec["description"], self.name)
            for rule_id, spec in self.portable["rules"].items()
        ]
        for lang, rules in sorted(self.phrase_rules.items()):
            for rule in rules:
                worst = max(rule.severity.values(), key=("info", "warning", "error").index)
                out.append(Rule(rule.id, rule.type, worst, rule.description, self.name, (lang,)))
        return out

    def check(self, text: str, options: CheckOptions) -> list[Issue]:
        lang = options.lang.split("-")[0]
        text = mask(text)  # URLs, e-mail addresses, placeholders, markup: blanked, offsets kept
        found: list[Issue] = []
        if lang not in self.portable["unspaced"]:
            found += self._repeated_words(text, lang)
            found += self._spacing(text, lang)
        found += self._punctuation(text)
        found += _unbalanced(text)
        if lang not in self.portable["caseless"]:
            found += self._capitals(text, lang)
        for rule in self.phrase_rules.get(lang, []):
            severity = rule.severity.get(options.domain)
            if severity is not None:
                found += _phrases(text, rule, severity)
        return found

    def _issue(self, rule_id: str, start: int, end: int, message: str, replacement: str | None = None) -> Issue:
        spec = self.portable["rules"][rule_id]
        return Issue(start, end - start, spec["type"], spec["severity"], rule_id, message, _fixes(replacement), self.name)

    def _repeated_words(self, text: str, lang: str) -> list[Issue]:
        allowed = {w.lower() for w in self._per_lang("allowed_doubles", lang)}
        issues = []
        for m in _REPEAT.finditer(text):
            if m.group(1).lower() in allowed or any(c.isdigit() for c in m.group(1)):
                continue
            message = f"The word “{m.group(1)}” is repeated."
            issues.append(self._issue("REPEATED_WORD", m.start(), m.end(), message, m.group(1)))
        return issues

    def _spacing(self, text: str, lang: str) -> list[Issue]:
        marks = ",." if lang in self.portable["spaced_high_punctuation"] else ",.;:!?"
        issues = []
        for m in re.finditer(rf"(?<=\p{{L}}|\p{{M}}|\p{{N}}|[)\]\"”’]) +(?=[{re.escape(marks)}](?:\s|$))", text):
            mark = text[m.end()]
            issues.append(self._issue("SPACE_BEFORE_PUNCTUATION", m.start(), m.end() + 1, f"No space before “{mark}”.", mark))
        for m in _SPACE_AFTER.finditer(text):
            if self._after_abbreviation(text, m.start(), lang):
                continue
            mark = text[m.start() - 1]
            issues.append(
                self._issue(
                    "MISSING_SPACE_AFTER_PUNCTUATION", m.start() - 1, m.start(), f"Add a space after “{mark}”.", f"{mark} "
                )
            )
        for m in _MULTI_SPACE.finditer(text):
            issues.append(self._issue("MULTIPLE_SPACES", m.start(), m.end(), "Several spaces in a row.", " "))
        return issues

    def _punctuation(self, text: str) -> list[Issue]:
        issues = [
            self._issue("DOUBLED_PUNCTUATION", m.start(), m.end(), f"“{m.group()}”: the mark is typed twice.", m.group()[0])
            for m in _DOUBLED.finditer(text)
        ]
        issues += [
            self._issue("REPEATED_EXCLAMATION", m.start(), m.end(), "Several marks in a row.", m.group()[-1])
            for m in _EXCLAIM.finditer(text)
        ]
        return issues

    def _capitals(self, text: str, lang: str) -> list[Issue]:
        issues = []
        for sentence in sentences(text):
            first = re.search(r"\p{L}[\p{L}\p{M}]*", sentence.text)
            starts_sentence = not text[: sentence.start].strip() or self._ends_sentence(text, sentence.start, lang)
            if first is None or first.start() != 0 or not starts_sentence:
                continue
            word = first.group()
            if word[0].islower() and word.isalpha() and word == word.lower():
                start = sentence.start
                message = "A sentence starts with a capital letter."
                issues.append(
                    self._issue("SENTENCE_START_CAPITAL", start, start + len(word), message, word[0].upper() + word[1:])
                )
        return issues

    def _ends_sentence(self, text: str, start: int, lang: str) -> bool:
        before = text[:start].rstrip()
        if before.endswith(("!", "?")):
            return not _dialogue_line(before)  # "– Where are they? asked Anna.": the tag goes on in lower case
        return before.endswith("。") or (
            before.endswith(".")
            and not self._after_abbreviation(text, len(before), lang)
            and not (lang in self.portable["ordinal_period"] and re.search(r"\b\d{1,4}\.$", before))
        )

    def _after_abbreviation(self, text: str, dot_end: int, lang: str) -> bool:
        token = re.search(r"[\p{L}.°-]+\.?$", text[:dot_end])
        word = token.group().rstrip(".").lower() if token else ""
        return word in {a.lower() for a in self._per_lang("abbreviations", lang)} or len(word) == 1

    def _per_lang(self, key: str, lang: str) -> list[str]:
        table = self.portable[key]
        return [*table.get(lang, []), *table.get("*", [])]


def _dialogue_line(before: str) -> bool:
    """Whether the line that ``before`` ends opens with a dialogue dash (– — ―)."""
    line = before[before.rfind("\n") + 1 :].lstrip()
    return line.startswith(("–", "—", "―"))


def _unbalanced(text: str) -> list[Issue]:
    issues: list[Issue] = []
    stack: list[tuple[str, int]] = []
    for i, char in enumerate(text):
        if char in _PAIRS:
            stack.append((char, i))
        elif char in _PAIRS.values():
            if stack and _PAIRS[stack[-1][0]] == char:
                stack.pop()
            elif not _list_marker(text, i):
                issues.append(_bracket(i, f"“{char}” closes nothing."))
    issues += [_bracket(i, f"“{c}” is never closed.") for c, i in stack]
    issues += _quotes(text)
    return issues


def _list_marker(text: str, i: int) -> bool:
    """``1)``, ``a)``, ``iv)`` after a space or at the start of a line: a list marker, not a bracket."""
    return bool(re.search(r"(?:^|\s)[\p{L}\p{N}]{1,3}$", text[max(0, i - 8) : i]))


def _bracket(i: int, message: str) -> Issue:
    return Issue(i, 1, "punctuation", "warning", "UNBALANCED_BRACKET", message, (), ENGINE)


#: Double quotation marks → the marks that may close them. The same mark closes different openers by
#: language: “ closes „ in German and Czech and opens in English; ” closes “ in English, „ in Polish and
#: Romanian, and itself in Swedish; » closes « in French and opens in Danish (»…«) and Swedish (»…»).
_QUOTE_CLOSERS = {"„": "“”", "“": "”“", "”": "”", "«": "»", "»": "«»"}


def _quotes(text: str) -> list[Issue]:
    """Double quotation marks without a pair, whichever of the languages' conventions the text follows."""
    issues = []
    stack: list[tuple[str, int]] = []
    for i, char in enumerate(text):
        if char not in _QUOTE_CLOSERS:
            continue
        if stack and char in _QUOTE_CLOSERS[stack[-1][0]]:
            stack.pop()
        else:
            stack.append((char, i))
    for char, i in stack:
        issues.append(Issue(i, 1, "punctuation", "warning", "UNBALANCED_QUOTE", f"“{char}” has no pair.", (), ENGINE))
    if text.count('"') % 2:
        i = text.rfind('"')
        issues.append(Issue(i, 1, "punctuation", "warning", "UNBALANCED_QUOTE", 'A quotation mark “"” has no pair.', (), ENGINE))
    return issues


def _phrases(text: str, rule: PhraseRule, severity: Severity) -> list[Issue]:
    issues = []
    for m in rule.pattern.finditer(text):
        replacement = rule.replacement(m.group())
        message = rule.message.format(match=m.group(), replacement=replacement or "")
        issues.append(
            Issue(
                m.start(),
                m.end() - m.start(),
                rule.type,
                severity,
                rule.id,
                message,
                _fixes(_cased(replacement, m.group())),
                ENGINE,
            )
        )
    return issues


def _fixes(replacement: str | None) -> tuple[str, ...]:
    return () if replacement is None else (replacement,)


def _cased(replacement: str | None, found: str) -> str | None:
    """Keep a capital at the start of the found phrase."""
    if not replacement or not found[:1].isupper() or replacement[:1].isupper():
        return replacement
    return replacement[0].upper() + replacement[1:]


def _alternation(phrases: list[str]) -> re.Pattern[str]:
    ordered = sorted(phrases, key=len, reverse=True)
    body = "|".join(p if p.startswith("(") else re.escape(p).replace(r"\ ", r"\s+").replace("'", "['’]") for p in ordered)
    return re.compile(rf"(?<![\p{{L}}\p{{M}}'’])(?:{body}){_END}", re.IGNORECASE)


def _confusable(lang: str, entry: dict[str, Any]) -> PhraseRule:
    pattern = re.compile(rf"(?<![\p{{L}}\p{{M}}'’])(?:{entry['pattern']}){_END}", re.IGNORECASE)
    rule_id = f"{lang.upper()}_CONFUSION_{entry['name'].upper()}"
    severity: dict[str, Severity] = {d: "error" for d in ("general", "academic", "business", "casual")}
    return PhraseRule(
        rule_id, "grammar", entry["message"], entry["message"], pattern, {entry["pattern"]: entry["replacement"]}, severity
    )


def _pack_rule(spec: dict[str, Any]) -> PhraseRule:
    phrases: dict[str, str | None] = dict(spec["phrases"])
    return PhraseRule(
        spec["id"],
        spec["type"],
        spec["description"],
        spec["message"],
        _alternation(list(phrases)),
        phrases,
        dict(spec["severity"]),
    )
