"""What a column's name says it is, read the same way by the data's profile and the reader of instructions."""

from __future__ import annotations

import re


_ID_NAMES = ("id", "uuid", "key", "index", "rownames", "row_id", "customerid", "customer_id")


def named_as_id(name: str) -> bool:
    """'id', 'customer_id', 'Person.ID', 'FlockID', 'orderId', 'uuid': a name that says its column identifies rows."""
    lowered = name.strip().lower()
    return lowered in _ID_NAMES or lowered.endswith(("_id", " id", ".id", "-id", "uuid", "guid")) \
        or bool(re.search(r"(?<=[a-z0-9])I[Dd]$", name.strip()))
