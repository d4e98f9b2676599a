"""Schemas of ``GET /v1/account``."""

from __future__ import annotations

from pydantic import BaseModel, Field


class AccountInfo(BaseModel):
    account_id: str
    name: str
    rate_limit_per_minute: int
    rate_limit_burst: int
    quotas: dict[str, int] = Field(description="Monthly limit per metric; absent metrics are unlimited.")
    usage: dict[str, int] = Field(description="Usage of the current calendar month (UTC).")
    period: str = Field(description="Current quota period, YYYY-MM (UTC).")
    caps: dict[str, int] = Field(
        default_factory=dict, description="Storage cap per name (docs/limits.md); absent caps are unlimited."
    )
    stored: dict[str, int] = Field(
        default_factory=dict, description="What the account holds now, per account-wide cap (same names as caps)."
    )
