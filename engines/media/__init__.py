"""Media handling with ffprobe/ffmpeg: probing and validating uploads, extracting
speech audio, burning subtitles into video.

``probe.probe`` + ``probe.validate`` decide whether an upload is accepted (see
docs/media.md for the table); ``ffmpeg.extract_audio`` feeds speech
recognition; ``ffmpeg.burn_subtitles`` renders an ASS file into an H.264/AAC
MP4. Import from the submodules: the package re-exports nothing, so the
``probe`` module is never shadowed by the function of the same name. Only the
standard library is used, so importing is cheap anywhere.
"""
