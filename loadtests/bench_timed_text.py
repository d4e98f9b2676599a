"""Benchmark: timed-text quality of the service's subtitles, by preset, in several languages (docs/timed-text.md).

One service (Redis + Ray + the Serve app with configs/local.yaml's engines), then, per job, ``POST
/v1/video/translate`` polled to completion and its SRT checked by ``loadtests/qc_subtitles.py``'s rules
against the target language's ``standard`` preset, at the video's frame rate and with the video's known
shot changes. Each job runs twice in the same run: ``subtitle_preset=legacy`` (the single preset of
earlier versions, the baseline) and ``standard`` (the default).

Media (built once under var/bench/):

* ``speech``: real English speech (the codec2-examples recordings of bench_video.py), ``--minutes`` long,
  640x360 at 25 fps, no shot changes;
* ``dialogue``: the two-voice espeak-ng dialogue of tests/support/dialogue.py (about 45 s, a known
  script), at 23.976 fps, with a shot change at every change of speaker (shot/reverse shot), translated
  into French with diarization, and transcribed in English for the word error rate of the source SRT.

Prints, per job, the cues, the share breaking any rule and the rules broken, for both presets; the word
error rate of the English SRT of the dialogue against its script under both presets; how many sentences
were condensed and by how much; and the wall time of each job.

    .venv/bin/python loadtests/bench_timed_text.py --langs es,de,fr,pt,zh,it --minutes 2
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx
import numpy as np
import soundfile as sf

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loadtests.bench_video import build_video, service_job  # noqa: E402
from loadtests.qc_subtitles import read_cues  # noqa: E402
from pipelines.subtitles.presets import preset_for  # noqa: E402
from pipelines.subtitles.qc import check_cues  # noqa: E402
from tests.support.dialogue import SCRIPT, build_dialogue  # noqa: E402
from tests.support.text import word_error_rate  # noqa: E402

DIALOGUE_FPS = "24000/1001"
FPS = 24000 / 1001
#: Shot/reverse shot: the picture cuts this long before each new speaker's line.
CUT_LEAD_S = 0.4
#: Each job's SRT and transcript, and the summaries.
OUT = ROOT / "var" / "bench" / "timed_text"


def build_dialogue_video() -> tuple[Path, list[float]]:
    """The dialogue as a 23.976 fps video cutting between two shots at each change of speaker.

    The second shot is laid over the first while its turn lasts, so each cut falls on the first frame at or
    after its time; the cut times returned are those frames' times.
    """
    out = ROOT / "var" / "bench" / "dialogue_23976.mp4"
    dialogue = build_dialogue()
    turns = dialogue.turns
    wanted = [max(0.0, start - CUT_LEAD_S) for (start, _, voice), (_, _, before) in zip(turns[1:], turns) if voice != before]
    cuts = [math.ceil(t * FPS - 1e-9) / FPS for t in wanted]
    if out.exists():
        return out, cuts
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        wav = Path(tmp) / "dialogue.wav"
        sf.write(wav, dialogue.audio, dialogue.sample_rate)
        bounds = [*cuts, dialogue.duration + 1]
        shown = "+".join(f"between(t,{a - 0.5 / FPS:.6f},{b - 0.5 / FPS:.6f})" for a, b in zip(bounds[::2], bounds[1::2]))
        size = f"size=640x360:rate={DIALOGUE_FPS}:duration={dialogue.duration:.3f}"
        graph = f"[1:v][2:v]overlay=enable='{shown}'[v]"
        cmd = ["ffmpeg", "-v", "error", "-y", "-i", str(wav), "-f", "lavfi", "-i", f"testsrc2={size}", "-f", "lavfi"]
        cmd += ["-i", f"smptebars={size}", "-filter_complex", graph, "-map", "[v]", "-map", "0:a"]
        cmd += ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", str(out)]
        subprocess.run(cmd, check=True)
    return out, cuts


def _report(label: str, cues: list, lang: str, fps: float, cuts: list[float]) -> dict:
    report = check_cues(cues, preset_for(lang), fps, cuts)
    summary = report.summary()
    broken = {rule: n for rule, n in summary["rules"].items() if n}
    print(f"  {label:28} {summary['cues']:4d} cues, {100 * report.share():5.1f} % break a rule  {broken}")
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--minutes", type=float, default=2.0, help="length of the real-speech video")
    parser.add_argument("--langs", default="es,de,fr,pt,zh,it", help="targets of the real-speech video (served from en)")
    args = parser.parse_args()
    speech = build_video(args.minutes)
    dialogue, cuts = build_dialogue_video()
    reference = " ".join(line for _, line in SCRIPT)
    media = {"speech": (speech, 25.0, []), "dialogue": (dialogue, 24000 / 1001, cuts)}
    jobs: dict[str, dict[str, str]] = {}
    targets: dict[str, tuple[str, str]] = {}
    for preset in ("legacy", "standard"):
        for lang in args.langs.split(","):
            jobs[f"speech en>{lang} {preset}"] = {"target_lang": lang, "subtitle_preset": preset, "video": str(speech)}
            targets[f"speech en>{lang} {preset}"] = ("speech", lang)
        jobs[f"dialogue en>fr diarized {preset}"] = {
            "target_lang": "fr", "enable_diarization": "true", "subtitle_preset": preset, "video": str(dialogue),
        }  # fmt: skip
        targets[f"dialogue en>fr diarized {preset}"] = ("dialogue", "fr")
        jobs[f"dialogue en>en {preset}"] = {"target_lang": "en", "subtitle_preset": preset, "video": str(dialogue)}
        targets[f"dialogue en>en {preset}"] = ("dialogue", "en")
    print(f"media: {speech} ({args.minutes:g} min), {dialogue} ({len(cuts)} shot changes)")
    summaries: dict[str, dict] = {}
    errors: dict[str, float] = {}
    condensed: dict[str, tuple[int, int, int]] = {}

    def on_done(label: str, task: dict, client: httpx.Client) -> None:
        if task["status"] != "completed":
            print(f"  {label}: {task['status']} {task.get('error')}")
            return
        kind, lang = targets[label]
        _, fps, shot_changes = media[kind]
        text = client.get(task["result"]["subtitle_url"]).text
        cues = read_cues_text(text)
        summaries[label] = _report(label, cues, lang, fps, shot_changes)
        OUT.mkdir(parents=True, exist_ok=True)
        name = label.replace(" ", "_").replace(">", "-")
        (OUT / f"{name}.srt").write_text(text, encoding="utf-8")
        if lang == "en":
            heard = " ".join(c.text.replace("\n", " ") for c in cues)
            errors[label] = word_error_rate(reference, heard)
        transcript = client.get(f"/v1/video/task/{task['task_id']}/transcript").json()
        (OUT / f"{name}.transcript.json").write_text(json.dumps(transcript, ensure_ascii=False, indent=1), encoding="utf-8")
        shorter = [(len(s["full_translation"]), len(s["translation"])) for s in transcript["segments"] if s.get("condensed")]
        condensed[label] = (len(transcript["segments"]), len(shorter), sum(a - b for a, b in shorter))

    results = service_job(speech, jobs, on_done=on_done)
    print("\nshare of cues breaking any rule of the standard preset (legacy → standard)")
    for label in jobs:
        if label.endswith(" standard"):
            base = label.removesuffix(" standard")
            old, new = summaries.get(f"{base} legacy"), summaries.get(label)
            if old and new:
                print(f"  {base:26} {100 * old['failing_share']:5.1f} % → {100 * new['failing_share']:5.1f} %")
    print("\nword error rate of the English SRT of the dialogue against its script")
    for label, wer in errors.items():
        print(f"  {label:28} {wer:.3f}")
    print("\ncondensed sentences (standard preset)")
    for label, (total, count, saved) in condensed.items():
        if label.endswith(" standard"):
            print(f"  {label:28} {count} of {total} sentences, {saved} characters shorter in all")
    print("\njob wall time")
    for label, (seconds, _, _) in results.items():
        print(f"  {label:28} {seconds:6.1f} s")
    (OUT / "summaries.json").write_text(json.dumps(summaries, indent=1))


def read_cues_text(text: str) -> list:
    with tempfile.NamedTemporaryFile("w", suffix=".srt", encoding="utf-8", delete=False) as fh:
        fh.write(text)
    try:
        return read_cues(Path(fh.name))
    finally:
        Path(fh.name).unlink()


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
