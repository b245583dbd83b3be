"""What the browser tests and the screenshot script share: Chromium, the tools, the server.

Chromium is Debian's ``chromium`` package, driven by Playwright's Python driver through
``executable_path`` (Playwright's own browser downloads are not used).
"""

from __future__ import annotations

import os
import shutil
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AnyUrl, BaseModel, Field

from forge.examples import example_registry
from forge.tools import ToolRegistry, tool
from tests.unit.mcp.servers.thread_server import ThreadServer

CHROMIUM_ENV = "FORGE_CHROMIUM"
"""Names the Chromium binary to use instead of ``/usr/bin/chromium`` or ``chromium`` on PATH."""
INSTALL_HINT = (
    "Chromium is not installed, so the catalog's browser tests cannot run. Install Debian's "
    "package ('apt-get install -y chromium', as root; 'make test' does it), or set "
    f"{CHROMIUM_ENV} to a Chromium binary"
)
CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TOKEN = "catalog-browser-test-token-0123456789"
VIEWPORT = {"width": 1280, "height": 800}


def find_chromium() -> str | None:
    """The Chromium binary: ``$FORGE_CHROMIUM``, ``/usr/bin/chromium``, or one on PATH."""
    named = os.environ.get(CHROMIUM_ENV)
    if named:
        return named if Path(named).is_file() else None
    if Path("/usr/bin/chromium").is_file():
        return "/usr/bin/chromium"
    return shutil.which("chromium") or shutil.which("chromium-browser")


# ------------------------------------------------------------------ the tools served


class Traveller(BaseModel):
    """One person on the trip."""

    name: str = Field(description="Full name")
    age: int = Field(ge=0, le=130, description="Age in years")


ERASED: list[str] = []
"""What `erase_notes` erased: the confirmation tests check nothing ran before confirming."""


@tool(category="task", tags=["travel", "planning"], annotations={"read_only": True})
def plan_trip(
    destination: str,
    nights: Annotated[int, Field(ge=1, le=60)],
    travellers: list[Traveller],
    transport: Literal["train", "plane", "car"] = "train",
    budget: float | None = None,
    refundable: bool = False,
) -> dict[str, Any]:
    """Plan a trip for a group of travellers.

    Args:
        destination: The city to travel to.
        nights: How many nights to stay.
        travellers: Who is going.
        transport: How to get there.
        budget: The most to spend in euros, if there is a limit.
        refundable: Only refundable bookings.
    """
    people = ", ".join(t.name for t in travellers)
    return {"plan": f"{nights} nights in {destination} by {transport} for {people}"}


@tool(category="task", tags=["notes", "write"], annotations={"destructive": True})
def erase_notes(prefix: str) -> str:
    """Erase every note whose title starts with a prefix.

    Args:
        prefix: The start of the titles to erase.
    """
    ERASED.append(prefix)
    return f"erased the notes starting with {prefix!r}"


@tool(category="utility", tags=["debug"], annotations={"read_only": True})
def echo_arguments(
    labels: list[str],
    limits: dict[str, int] | int,
    urgent: bool | None = None,
    ratio: float = 0.5,
) -> dict[str, Any]:
    """Return the arguments exactly as received.

    Args:
        labels: Some labels.
        limits: One limit for all, or a limit per name.
        urgent: Whether it is urgent.
        ratio: A ratio.
    """
    return {"labels": labels, "limits": limits, "urgent": urgent, "ratio": ratio}


@tool(
    category="utility",
    tags=["units"],
    version="0.9",
    usage_notes="Rounds to whole centimetres.",
    limitations=["Inches only"],
    deprecated=True,
    replaced_by="convert_length",
)
def inches_to_cm(inches: float) -> float:
    """Convert inches to centimetres (the old way)."""
    return round(inches * 2.54)


class Address(BaseModel):
    """Where a parcel goes or comes from."""

    street: str = Field(min_length=1, max_length=200, description="Street and number")
    city: str = Field(description="City")
    postcode: str = Field(pattern=r"^[A-Z0-9 -]{3,10}$", description="Postal code")
    country: str = Field(default="PT", min_length=2, max_length=2, description="ISO 3166 code")


class Parcel(BaseModel):
    """One box in the shipment."""

    weight_kg: float = Field(gt=0, le=70, description="Weight in kilograms")
    dimensions_cm: tuple[int, int, int] = Field(description="Length, width and height")
    fragile: bool = False
    contents: list[str] = Field(default_factory=list, max_length=20, description="What is inside")


class Insurance(BaseModel):
    """Cover for loss or damage."""

    kind: Literal["insured"] = "insured"
    value_eur: float = Field(ge=1, le=50_000, multiple_of=0.01, description="Declared value")


@tool(
    category="task",
    tags=["shipping", "write"],
    annotations={"destructive": False, "idempotent": False},
    version="2.3",
    usage_notes="Book only after the customer confirmed the price.",
    limitations=["No dangerous goods", "Europe only"],
)
def book_shipment(
    sender: Address,
    recipient: Address,
    parcels: Annotated[list[Parcel], Field(min_length=1, max_length=10)],
    pickup_after: datetime,
    notify: Annotated[str, Field(json_schema_extra={"format": "email"})],
    service: Literal["economy", "standard", "express"] = "standard",
    cover: Insurance | Literal["none"] = "none",
    callback_url: AnyUrl | None = None,
    reference: Annotated[str, Field(max_length=35)] | int | None = None,
    labels: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Book a courier to collect one or more parcels and deliver them to one address.

    Use this once the customer has chosen a service and confirmed the price; it books a
    real collection, so check the addresses first. The courier collects after
    ``pickup_after`` on the next working day the sender's depot serves, and the tracking
    number comes back in the result.

    Args:
        sender: Where the courier collects the parcels.
        recipient: Where the parcels go.
        parcels: The boxes, each with its weight and size.
        pickup_after: The earliest collection time, with its time zone.
        notify: Who gets the tracking emails.
        service: How fast: economy (3-5 days), standard (2 days) or express (next day).
        cover: Insurance for the declared value, or none.
        callback_url: Where to post tracking events, if anywhere.
        reference: The customer's own reference, printed on the label.
        labels: Free-form labels kept with the booking.
    """
    boxes = len(parcels)
    return {"tracking": f"FT{boxes:02d}{recipient.postcode.replace(' ', '')}", "service": service}


def catalog_registry() -> ToolRegistry:
    """The bundled example tools plus five that exercise the form, confirmation, metadata and
    a long page (`book_shipment`, with many conversion notes)."""
    registry = example_registry()
    registry.register(plan_trip)
    registry.register(erase_notes)
    registry.register(echo_arguments)
    registry.register(inches_to_cm)
    registry.register(book_shipment)
    return registry


# ------------------------------------------------------------------ the server


class CatalogServer(ThreadServer):
    """`serve_http` with the catalog for ``registry`` on a free port of 127.0.0.1, metrics on."""

    def __init__(self, registry: ToolRegistry, *, token: str | None) -> None:
        self.token = token
        super().__init__(registry, token=token, metrics=True)

    @property
    def url(self) -> str:
        """The catalog's page."""
        return f"http://127.0.0.1:{self.port}/"
