"""Pixels for the bot's charts (odds and recap): bars, text and PNG bytes with numpy and PIL.

A chart is a palette image painted in place: rectangles are array slices, text is a bitmap
rendered once per (string, size, weight) with PIL's ``ImageFont`` and blended in, and the PNG
is written with zlib at a low compression level (two pixels a byte when the palette allows).
A fresh chart costs a few milliseconds, so no figure is kept between charts and nothing is
shared but the read-only text cache.

The type is the system's DejaVu Sans when it is installed, else the FreeType face Pillow itself
ships (``ImageFont.load_default``), bold drawn with a stroke (docs/players/index.md, "Odds charts").

``encode_png`` is the one PNG encoder of the bot's images (other renderers reuse it).
"""

from __future__ import annotations

import io
import struct
import threading
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import PIL.Image
    from PIL import ImageFont

__all__ = [
    "BACKGROUND",
    "GRID",
    "INK",
    "MUTED",
    "Box",
    "Canvas",
    "encode_indexed_png",
    "encode_png",
    "font_face",
    "rgb",
    "text_bitmap",
    "text_size",
]

# DejaVu Sans from the system (Debian's fonts-dejavu-core) when present; else Pillow's own
# scalable face, which has no bold: bold is then that face with a stroke of this share of the
# size around each glyph.
SYSTEM_FONTS = Path("/usr/share/fonts/truetype/dejavu")
FALLBACK_BOLD_STROKE = 1 / 24


@dataclass(frozen=True, slots=True)
class _Face:
    """A font at one size, and the stroke (px) that makes it bold when it has no bold."""

    font: ImageFont.FreeTypeFont | ImageFont.ImageFont
    stroke: int = 0


@lru_cache(maxsize=32)
def font_face(size: int, bold: bool) -> _Face:
    """Return DejaVu Sans at ``size`` px (bold or not), or PIL's own font drawn thicker for bold
    where DejaVu is missing."""
    from PIL import ImageFont

    path = SYSTEM_FONTS / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")
    if path.is_file():
        return _Face(ImageFont.truetype(str(path), size))
    stroke = max(1, round(size * FALLBACK_BOLD_STROKE)) if bold else 0
    return _Face(ImageFont.load_default(size), stroke)


@lru_cache(maxsize=256)
def rgb(colour: str) -> tuple[int, int, int]:
    """Return ``#rrggbb`` as an (r, g, b) triple."""
    value = int(colour.lstrip("#"), 16)
    return (value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF


def text_bitmap(text: str, size: int, bold: bool = False) -> np.ndarray:
    """Return ``text`` (lines split on newlines, centred) as coverage in 0-1, shape (h, w)."""
    from PIL import Image, ImageDraw

    face = font_face(size, bold)
    probe = ImageDraw.Draw(Image.new("L", (1, 1)))
    left, top, right, bottom = probe.multiline_textbbox(
        (0, 0), text, font=face.font, align="center", stroke_width=face.stroke
    )
    left, top = int(left), int(top)
    width, height = max(1, int(right) - left), max(1, int(bottom) - top)
    image = Image.new("L", (width, height))
    ImageDraw.Draw(image).multiline_text(
        (-left, -top),
        text,
        fill=255,
        font=face.font,
        align="center",
        stroke_width=face.stroke,
        stroke_fill=255,
    )
    bitmap = np.asarray(image, dtype=np.float32) / 255.0
    bitmap.setflags(write=False)
    return bitmap


@dataclass(frozen=True, slots=True)
class Box:
    """A rectangle in pixels: left, top (inclusive), right, bottom (exclusive)."""

    left: int
    top: int
    right: int
    bottom: int


TEXT_LEVELS = 8
"""Shades of anti-aliased text: enough for smooth edges, few enough for a small palette."""


def _shades(text: str, size: int, bold: bool) -> np.ndarray:
    """Return ``text``'s coverage as shade numbers 0 (none) to ``TEXT_LEVELS`` (full)."""
    levels = np.rint(text_bitmap(text, size, bold) * TEXT_LEVELS).astype(np.uint8)
    levels.setflags(write=False)
    return levels


# Short strings only: the tick labels, legends, captions and percentages that charts repeat
# (a few hundred bytes each). A title is ~18 kB and mostly asked once: 1,024 of them cached
# would hold 12 MB for nothing.
_cached_shades = lru_cache(maxsize=1024)(_shades)
# A long string is measured, then drawn, by the same chart: a few of them are kept for that.
_recent_long_shades = lru_cache(maxsize=16)(_shades)
CACHED_TEXT_LENGTH = 24


def _text_levels(text: str, size: int, bold: bool) -> np.ndarray:
    """Return ``text``'s shades, from the cache of short strings or of the last long ones."""
    if len(text) <= CACHED_TEXT_LENGTH:
        return _cached_shades(text, size, bold)
    return _recent_long_shades(text, size, bold)


_buffers = threading.local()


def _buffer(shape: tuple[int, ...]) -> np.ndarray:
    """Return this thread's scratch array of ``shape`` (reused: a fresh 0.5 MB array costs
    page faults that, on a busy machine, took longer than the drawing)."""
    cache: dict[tuple[int, ...], np.ndarray] = _buffers.__dict__.setdefault("arrays", {})
    array = cache.get(shape)
    if array is None:
        if len(cache) > 8:
            cache.clear()
        array = cache[shape] = np.empty(shape, dtype=np.uint8)
    return array


# Discord's dark theme (its chat background and text): every chart is drawn on this opaque
# grey, so it reads the same in the light theme, where it shows as a dark card.
BACKGROUND = "#313338"
INK = "#dbdee1"  # text
MUTED = "#949ba4"  # axes: Discord's secondary text
GRID = "#4e5058"  # grid lines, just above the background


class Canvas:
    """A palette image being painted: rectangles, dashed lines and anti-aliased text.

    Each pixel is an index into ``palette``; text is blended, in ``TEXT_LEVELS`` shades, with
    the background colour (it is drawn on blank space) or the colour it is said to lie on. A
    canvas is used on one thread and is done once ``png`` is called (its pixels are that
    thread's scratch buffer).
    """

    def __init__(self, width: int, height: int, background: str = BACKGROUND) -> None:
        self.pixels = _buffer((height, width))
        self.pixels.fill(0)
        self.background = rgb(background)
        self.palette: list[tuple[int, int, int]] = [self.background]
        self._indices: dict[tuple[int, int, int], int] = {self.background: 0}
        self._shades: dict[tuple[str, str | None], np.ndarray] = {}

    @property
    def width(self) -> int:
        return int(self.pixels.shape[1])

    @property
    def height(self) -> int:
        return int(self.pixels.shape[0])

    def index(self, colour: tuple[int, int, int]) -> int:
        """Return the palette index of an (r, g, b) colour, adding it if new."""
        found = self._indices.get(colour)
        if found is None:
            if len(self.palette) >= 256:
                raise ValueError("a chart uses at most 256 colours")
            found = self._indices[colour] = len(self.palette)
            self.palette.append(colour)
        return found

    def _shade_indices(self, colour: str, on: str | None = None) -> np.ndarray:
        """Return the palette index of each text shade 0..TEXT_LEVELS of ``colour`` over ``on``
        (the background if ``None``)."""
        shades = self._shades.get((colour, on))
        if shades is None:
            (r, g, b) = rgb(colour)
            (pr, pg, pb) = self.background if on is None else rgb(on)

            def mixed(level: int) -> tuple[int, int, int]:
                share = level / TEXT_LEVELS
                return (
                    round(pr + (r - pr) * share),
                    round(pg + (g - pg) * share),
                    round(pb + (b - pb) * share),
                )

            shades = np.array(
                [0] + [self.index(mixed(level)) for level in range(1, TEXT_LEVELS + 1)],
                dtype=np.uint8,
            )
            self._shades[colour, on] = shades
        return shades

    def rectangle(self, left: int, top: int, right: int, bottom: int, colour: str) -> None:
        """Fill the pixels ``left <= x < right``, ``top <= y < bottom`` (clipped)."""
        left, right = max(0, left), min(self.width, right)
        top, bottom = max(0, top), min(self.height, bottom)
        if left < right and top < bottom:
            self.pixels[top:bottom, left:right] = self.index(rgb(colour))

    def bars(
        self,
        bottom: int,
        lefts: np.ndarray,
        rights: np.ndarray,
        tops: np.ndarray,
        colours: Sequence[str],
    ) -> None:
        """Fill bar ``i`` from ``lefts[i]`` to ``rights[i]`` (exclusive), ``tops[i]`` down to
        ``bottom``, in ``colours[i]``; a later bar covers an earlier one where they overlap.

        One masked copy for all bars (a chart may have hundreds, narrower than a pixel).
        """
        lefts = np.clip(lefts, 0, self.width).astype(np.int64)
        lengths = np.clip(rights, 0, self.width).astype(np.int64) - lefts
        keep = lengths > 0
        if not keep.any():
            return
        lefts, lengths, tops = lefts[keep], lengths[keep], np.asarray(tops, dtype=np.int64)[keep]
        palette = {colour: self.index(rgb(colour)) for colour in set(colours)}
        indices = np.array([palette[colour] for colour in colours], dtype=np.uint8)[keep]
        # Every covered column, bar by bar: each bar's left repeated, plus 0, 1, ... within it.
        starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
        columns = np.repeat(lefts, lengths) + np.arange(int(lengths.sum())) - starts
        top_of = np.full(self.width, bottom, dtype=np.int64)
        colour_of = np.zeros(self.width, dtype=np.uint8)
        top_of[columns] = np.repeat(tops, lengths)
        colour_of[columns] = np.repeat(indices, lengths)
        first, last = int(columns.min()), int(columns.max()) + 1
        highest = max(0, int(top_of[first:last].min()))
        region = self.pixels[highest:bottom, first:last]
        rows = np.arange(highest, bottom)[:, None]
        painted = rows >= top_of[None, first:last]
        np.copyto(region, np.broadcast_to(colour_of[None, first:last], region.shape), where=painted)

    def dashed_vertical(
        self, x: int, top: int, bottom: int, colour: str, width: int = 3, dash: int = 10
    ) -> None:
        """Draw a dashed vertical line ``width`` px wide from ``top`` to ``bottom``."""
        for y in range(top, bottom, 2 * dash):
            self.rectangle(x - width // 2, y, x - width // 2 + width, min(y + dash, bottom), colour)

    def text(
        self,
        text: str,
        x: int,
        y: int,
        *,
        size: int,
        colour: str = INK,
        bold: bool = False,
        anchor: str = "lt",
        on: str | None = None,
    ) -> tuple[int, int]:
        """Draw ``text`` at (x, y); ``anchor`` is horizontal l/m/r then vertical t/m/b; ``on``
        is the colour under it when it isn't the background (text over a bar).

        Returns the text's (width, height) in pixels.
        """
        levels = _text_levels(text, size, bold)
        height, width = levels.shape
        left = x - {"l": 0, "m": width // 2, "r": width}[anchor[0]]
        top = y - {"t": 0, "m": height // 2, "b": height}[anchor[1]]
        x0, y0 = max(0, left), max(0, top)
        x1, y1 = min(self.width, left + width), min(self.height, top + height)
        if x0 < x1 and y0 < y1:
            shade = levels[y0 - top : y1 - top, x0 - left : x1 - left]
            region = self.pixels[y0:y1, x0:x1]
            np.copyto(region, self._shade_indices(colour, on)[shade], where=shade > 0)
        return width, height

    def rgb(self) -> np.ndarray:
        """Return the pixels as an (h, w, 3) RGB array (a copy)."""
        return np.array(self.palette, dtype=np.uint8)[self.pixels]

    def png(self) -> bytes:
        """Return the canvas as a palette PNG."""
        return encode_indexed_png(self.pixels, self.palette)


def text_size(text: str, size: int, bold: bool = False) -> tuple[int, int]:
    """Return the (width, height) ``text`` takes at ``size``."""
    height, width = _text_levels(text, size, bold).shape
    return width, height


def _saved(image: PIL.Image.Image) -> bytes:
    # zlib level 1: a chart is mostly flat colour, which compresses to a few per cent at once;
    # the default level 6 takes twice as long for a smaller file no one waits for.
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


def encode_png(pixels: np.ndarray) -> bytes:
    """Encode an (h, w, 3) RGB or (h, w, 4) RGBA uint8 array as PNG, fast (PIL, zlib level 1)."""
    if pixels.dtype != np.uint8 or pixels.ndim != 3 or pixels.shape[2] not in (3, 4):
        raise ValueError("expected an (h, w, 3 or 4) uint8 array")
    from PIL import Image

    mode = "RGB" if pixels.shape[2] == 3 else "RGBA"
    return _saved(Image.fromarray(np.ascontiguousarray(pixels), mode))


def encode_indexed_png(indices: np.ndarray, palette: list[tuple[int, int, int]]) -> bytes:
    """Encode an (h, w) array of palette indices and its (r, g, b) palette as PNG.

    Written here rather than by PIL: a chart has a dozen colours, so two pixels share a byte
    (bit depth 4) when the palette has at most 16, every row unfiltered, zlib level 1; PIL
    writes a byte a pixel, and encoding a 1000×800 chart took it twice as long (3.8 ms against
    1.7, the file larger too).
    """
    if indices.dtype != np.uint8 or indices.ndim != 2 or not 0 < len(palette) <= 256:
        raise ValueError("expected (h, w) uint8 indices and 1-256 palette colours")
    height, width = indices.shape
    depth = 4 if len(palette) <= 16 else 8
    row_bytes = (width + 1) // 2 if depth == 4 else width
    # Scratch arrays of this thread, reused (fresh ones cost page faults: see _buffer).
    rows = _buffer((height, row_bytes + 1))
    rows[:, 0] = 0  # each row's filter byte: none
    if depth == 4:
        pairs = indices if width % 2 == 0 else np.pad(indices, ((0, 0), (0, 1)))
        # Each two pixels read as one little-endian uint16 (contiguous: fast, where every other
        # byte of a uint8 row is not): first pixel in the low byte, second in the high.
        both = np.ascontiguousarray(pairs).view("<u2")
        first, second = _buffer((2, height, 2 * row_bytes)).view("<u2")
        np.bitwise_and(both, 0x0F, out=first)
        first <<= 4
        np.right_shift(both, 8, out=second)
        first |= second
        np.copyto(rows[:, 1:], first, casting="unsafe")  # each value fits a byte
    else:
        rows[:, 1:] = indices
    header = struct.pack(">IIBBBBB", width, height, depth, 3, 0, 0, 0)  # 3: palette colour
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _png_chunk(b"IHDR", header),
            _png_chunk(b"PLTE", bytes(channel for colour in palette for channel in colour)),
            _png_chunk(b"IDAT", zlib.compress(rows.tobytes(), 1)),
            _png_chunk(b"IEND", b""),
        )
    )


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    """Return one PNG chunk: length, type, data and the CRC of type and data."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
