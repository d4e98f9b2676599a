"""Speakers: the speaker encoders (protocol, cosine, the two models) and perceived gender from pitch."""
