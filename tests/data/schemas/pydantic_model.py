"""Writes pydantic.json: pydantic's model_json_schema() for a model with every
field kind of the MCP form profile, as another tool would send it.

    python3 -m venv venv && venv/bin/pip install pydantic==2.14.4 email-validator
    venv/bin/python tests/data/schemas/pydantic_model.py > tests/data/schemas/pydantic.json

Optional fields are written with a default, not as `Optional[X] = None`:
pydantic emits `anyOf: [X, {"type": "null"}]` for those, which is outside the
form profile (a form field is optional by being absent from `required`).
Enum classes are emitted as `$ref` into `$defs`, also outside the profile;
`Literal` gives a plain `enum`.
"""

import datetime
import json
from typing import List, Literal

from pydantic import AnyUrl, BaseModel, EmailStr, Field


class Signup(BaseModel):
    """Create your account."""

    full_name: str = Field(min_length=1, max_length=100, description="As on your passport")
    email: EmailStr
    homepage: AnyUrl = Field(default="https://example.com/", examples=["https://example.com/"])
    birthday: datetime.date = Field(default=datetime.date(1815, 12, 10))
    meeting_at: datetime.datetime
    team_size: int = Field(ge=2, le=500)
    score: float = Field(default=0.5, ge=-1.5, le=100)
    newsletter: bool = False
    plan: Literal["pro", "team"] = "pro"
    roles: List[Literal["admin", "billing", "member"]] = Field(min_length=1, max_length=3)


print(json.dumps(Signup.model_json_schema(), indent=2))
