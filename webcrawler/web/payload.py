"""Reading what clients send, strictly: a JSON object of known types, or a clear BadQuery.

A body that is a list, a string or not JSON at all; a field of the wrong type
(a list for `q`, a boolean for `seconds`); NaN, infinities and numbers past
any limit; digits from other scripts ("²", "١") in a count: each is refused with
a message fit to show, never turned into a 500 by a later int() or float().

    json_object() -> dict            the request's JSON body, which must be an object
    text_field(data, name) -> str    a string (or absent: "")
    number_field(data, name, default, low, high) -> float
    count_param(raw, name, default, high) -> int   an ASCII-digit query parameter
    http_url_field(data, name) -> str | None      an http(s) URL, normalised (or absent: None)
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from flask import request

from webcrawler.errors import UsageError
from webcrawler.protocol.urls import InvalidURL, normalize


class BadQuery(UsageError, ValueError):
    """A query or parameter the server will not run; str(error) is shown to the user."""


_DIGITS = re.compile(r"[0-9]{1,9}")  # ASCII only: str.isdigit() accepts "²", which int() refuses


def json_object() -> dict[str, Any]:
    """The body as a JSON object (a dict); BadQuery for anything else (deeply nested
    arrays included: the json module recurses, and a RecursionError is no ValueError)."""
    try:
        data = json.loads(request.get_data(cache=True))
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict):
        raise BadQuery("Send a JSON object, e.g. {\"q\": \"sailing boats\"}.")
    return data


def text_field(data: dict[str, Any], name: str) -> str:
    value = data.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise BadQuery(f"{name} must be a string.")
    if "\x00" in value:
        raise BadQuery(f"{name} contains a NUL character.")
    return value.strip()


def http_url_field(data: dict[str, Any], name: str) -> str | None:
    """An http or https URL in its normalised form, or None when absent. Any other scheme
    (file, gopher, ftp, ...) is refused here, before a job is started with it."""
    value = text_field(data, name)
    if not value:
        return None
    try:
        return normalize(value)
    except InvalidURL:
        raise BadQuery(f"{name} must be an http or https URL.") from None


def number_field(data: dict[str, Any], name: str, default: float, low: float, high: float) -> float:
    """A number in [low, high]; `default` when absent, null or "". Strings of digits are
    accepted (HTML forms send them); booleans, NaN and infinities are not."""
    value = data.get(name)
    if value is None or value == "":
        return default
    message = f"{name} must be a number from {low:g} to {high:g}."
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise BadQuery(message)
    if isinstance(value, str):
        if not re.fullmatch(r"[0-9]{1,9}(\.[0-9]{1,6})?", value.strip()):
            raise BadQuery(message)
        value = float(value)
    if isinstance(value, int) and not low <= value <= high:  # before float(): 10**400 overflows
        raise BadQuery(message)
    number = float(value)
    if not math.isfinite(number) or not low <= number <= high:
        raise BadQuery(message)
    return number


def count_param(raw: str | None, name: str, default: int, high: int) -> int:
    """A query-string count such as `after`: ASCII digits, at most `high`."""
    if raw is None or raw == "":
        return default
    if not _DIGITS.fullmatch(raw) or int(raw) > high:
        raise BadQuery(f"{name} must be a whole number from 0 to {high}.")
    return int(raw)
