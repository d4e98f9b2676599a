"""Grammalecte worker: runs under the system ``python3`` (Debian ``python3-grammalecte``), JSON lines on stdio.

Request ``{"id": n, "text": "..."}`` → ``{"id": n, "issues": [...]}``; ``{"rules": true}`` → the rule list.
Offsets are code points of the whole text. Kept free of project imports: it runs outside the venv.
"""

import json
import sys

import grammalecte


def paragraphs(text):
    start = 0
    for line in text.split("\n"):
        yield start, line
        start += len(line) + 1


def check(checker, text):
    issues = []
    for start, line in paragraphs(text):
        if not line.strip():
            continue
        grammar, spelling = checker.getParagraphErrors(line, bSpellSugg=True)
        for e in grammar:
            issues.append(
                {
                    "start": start + e["nStart"],
                    "end": start + e["nEnd"],
                    "rule": e["sRuleId"],
                    "kind": e["sType"],
                    "message": e["sMessage"],
                    "suggestions": list(e.get("aSuggestions", []))[:3],
                }
            )
        for e in spelling:
            issues.append(
                {
                    "start": start + e["nStart"],
                    "end": start + e["nEnd"],
                    "rule": "graphspell",
                    "kind": "spell",
                    "message": "Mot inconnu : « {} ».".format(e["sValue"]),
                    "suggestions": list(e.get("aSuggestions", []))[:3],
                }
            )
    return issues


def main():
    checker = grammalecte.GrammarChecker("fr")
    engine = checker.getGCEngine()
    out = sys.stdout
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for raw in sys.stdin:
        request = json.loads(raw)
        try:
            if request.get("rules"):
                reply = {"id": request["id"], "rules": [[r[1], r[3]] for r in engine.listRules()]}
            else:
                reply = {"id": request["id"], "issues": check(checker, request["text"])}
        except Exception as exc:  # reported to the engine, which raises EngineFailure
            reply = {"id": request["id"], "error": f"{type(exc).__name__}: {exc}"}
        out.write(json.dumps(reply, ensure_ascii=False) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
