"""An added language's spec (what it inherits from its parent, what it never does), its charges and its record."""

from __future__ import annotations

import pydantic
import pytest

from core.specs.added_language import AddLanguageRequest, added_language_spec
from core.specs.translation_of import TranslationOf
from core.specs.video import GlossaryEntry, GlossarySnapshot, UploadSource, VideoJobSpec
from core.tasks import Task, TaskState
from serve_app.schemas.video import TaskRecord
from serve_app.video_languages import language_charges

ORIGIN = TranslationOf(parent_task_id="p" * 32, root_task_id="r" * 32)
GLOSSARY = GlossarySnapshot(
    glossary_id="g1", source_lang="en", target_lang="es", entries=[GlossaryEntry(source="a", target="b")], case_sensitive=False
)


def parent(**options: object) -> VideoJobSpec:
    fields: dict[str, object] = {
        "target_lang": "es",
        "source_lang": "en",
        "output_format": "all",
        "bilingual": True,
        "subtitle_color": "#FFFF00",
        "max_subtitle_length": 30,
        "explicit_layout": ["max_subtitle_length"],
        "callback_url": "https://hooks.example.com/parent",
        "glossary": GLOSSARY,
        "enable_diarization": True,
        "start_time": 12.0,
        "engine": "professional",
    }
    return VideoJobSpec(source=UploadSource(key="u/talk.mp4", filename="talk.mp4", size=10), **{**fields, **options})  # type: ignore[arg-type]


def test_omitted_choices_are_the_parents_except_the_glossary_callback_and_layout_limits() -> None:
    spec = added_language_spec(parent(), AddLanguageRequest(target_lang="de"), "de", None, ORIGIN)
    assert spec.target_lang == "de" and spec.translation_of == ORIGIN and spec.revision is None
    assert (spec.output_format, spec.bilingual, spec.subtitle_color, spec.engine) == ("all", True, "#FFFF00", "professional")
    assert (spec.enable_diarization, spec.start_time, spec.source) == (True, 12.0, parent().source)  # recognition: the parent's
    assert spec.callback_url is None and spec.glossary is None
    assert spec.explicit_layout == [] and spec.max_subtitle_length == VideoJobSpec.model_fields["max_subtitle_length"].default
    assert not spec.recognizes and spec.speed_kind == "added-burn"


def test_given_choices_win_and_the_glossary_is_the_resolved_one() -> None:
    request = AddLanguageRequest(
        target_lang="fr", output_format="vtt", max_subtitle_length=36, engine="standard", enable_dubbing=True,
        callback_url="https://hooks.example.com/child", glossary_id="g2",
    )  # fmt: skip
    french = GLOSSARY.model_copy(update={"glossary_id": "g2", "target_lang": "fr"})
    spec = added_language_spec(parent(), request, "fr", french, ORIGIN)
    assert (spec.output_format, spec.max_subtitle_length, spec.engine) == ("vtt", 36, "standard")
    assert spec.explicit_layout == ["max_subtitle_length"] and spec.glossary == french
    assert spec.callback_url == "https://hooks.example.com/child" and spec.speed_kind == "added-dub"


def test_a_revision_as_parent_starts_a_chain_of_its_own() -> None:
    revised = parent(revision={"parent_task_id": "x" * 32, "root_task_id": "r" * 32, "number": 3, "edits": []})
    spec = added_language_spec(revised, AddLanguageRequest(target_lang="de"), "de", None, ORIGIN)
    assert spec.revision is None and spec.translation_of == ORIGIN


@pytest.mark.parametrize(
    "body",
    [
        {},  # no target
        {"target_lang": "de", "source_lang": "fr"},  # a recognition choice
        {"target_lang": "de", "enable_diarization": True},
        {"target_lang": "de", "segments": []},
        {"target_lang": "de", "max_subtitle_length": 5},  # out of the submission's range
        {"target_lang": "de", "output_format": "mp3"},
    ],
)
def test_the_request_takes_output_choices_only(body: dict) -> None:
    with pytest.raises(pydantic.ValidationError):
        AddLanguageRequest.model_validate(body)


def test_charges_never_count_minutes_recognized_or_diarized() -> None:
    subtitles = added_language_spec(parent(engine="standard"), AddLanguageRequest(target_lang="de"), "de", None, ORIGIN)
    assert language_charges(subtitles, 95.0) == [("video_tasks", 1)]
    dubbed = added_language_spec(parent(), AddLanguageRequest(target_lang="de", enable_dubbing=True), "de", None, ORIGIN)
    assert language_charges(dubbed, 95.0) == [("video_tasks", 1), ("professional_minutes", 2), ("dubbing_seconds", 95)]


def test_the_task_record_names_the_parent() -> None:
    spec = added_language_spec(parent(), AddLanguageRequest(target_lang="de"), "de", None, ORIGIN)
    task = Task(task_id="c" * 32, account_id="acct", status=TaskState.QUEUED, created_at=1_790_000_000.0, params=spec.stored())
    record = TaskRecord.model_validate(task.public()).model_dump(exclude_none=True)
    assert record["parent_task_id"] == ORIGIN.parent_task_id and "revision" not in record
    assert VideoJobSpec.model_validate(spec.stored()).translation_of == ORIGIN  # stored and read back
