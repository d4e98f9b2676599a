"""One realistic request body per body model, shown in /openapi.json and on /docs.

Each example must validate against its model (tests/unit/test_openapi.py checks it), so the
documentation cannot drift from what the service accepts. Multipart bodies list their text
fields; the file part (``file``, ``sample``) is described by the schema.
"""

from __future__ import annotations

from typing import Any

#: Body model name → example body.
EXAMPLES: dict[str, dict[str, Any]] = {
    "LocalizationRequest": {
        "text": "Daily reward ready: open the chest before midnight to claim.",
        "content_type": "ui",
        "source_lang": "en",
        "target_langs": ["es", "de", "ja"],
        "genre": "rpg",
        "max_length": 80,
        "tone": "humorous",
    },
    "GlossaryCreate": {
        "name": "Fantasy terms",
        "source_lang": "en",
        "target_lang": "es",
        "entries": [{"source": "mana potion", "target": "poción de maná"}, {"source": "Ironforge", "target": "Ironforge"}],
        "case_sensitive": False,
        "description": "Item and place names of the game.",
    },
    "ReviseRequest": {
        "segments": [
            {"id": "s3", "translation": "Nos vemos en la estación a las nueve."},
            {"id": "s7", "source": "Take the northern gate, not the southern one."},
            {"id": "s8", "speaker": "Speaker 2", "start": 41.2, "end": 44.0},
        ],
        "output_format": "all",
    },
    "GlossaryUpdate": {"entries": [{"source": "mana potion", "target": "elixir de maná"}]},
    "GrammarCheckRequest": {
        "text": "She go to school every days, and their is no bus.",
        "lang": "en",
        "check_types": ["spelling", "grammar", "punctuation"],
        "severity": "warning",
        "disable_rules": ["EN_A_VS_AN"],
    },
    "TtsRequest": {
        "text": "Welcome back to the show. Today we travel to Lisbon.",
        "lang": "en",
        "gender": "female",
        "emotion": "happy",
        "emotion_intensity": 0.6,
        "speed": 1.0,
        "output_format": "mp3",
    },
    "VideoTranslateParams": {
        "target_lang": "es",
        "source_lang": "en",
        "output_format": "srt",
        "engine": "standard",
        "enable_diarization": True,
        "callback_url": "https://hooks.example.com/mediatrans",
    },
    "VoiceCloneParams": {"voice_name": "Narrator", "lang": "en", "gender": "female", "noise_reduction": True},
    "VoiceUpdate": {"voice_name": "Narrator (warm)", "description": "Audiobook narration"},
    "MemoryCreate": {
        "name": "Quest texts",
        "source_lang": "en",
        "target_lang": "es",
        "description": "Approved translations of the quest log.",
        "entries": [
            {"source": "Open the quest log", "target": "Abre el diario de misiones"},
            {"source": "Quest complete!", "target": "¡Misión cumplida!"},
        ],
    },
    "MemoryUploadParams": {"name": "Quest texts (TMX)", "source_lang": "en", "target_lang": "es"},
    "MemoryEntries": {"entries": [{"source": "Open the {0} door", "target": "Abre la puerta {0}"}]},
    "MemorySources": {"sources": ["Quest complete!"]},
}
