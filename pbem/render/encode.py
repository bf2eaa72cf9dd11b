"""A board picture as PNG bytes: a palette of exactly its colours, the file written here, band by band.

The palette: a board is drawn with a few dozen flat colours (text is drawn
solid, ``pbem.render.measure.write``), so the palette is exactly the colours
the picture holds, in order of colour (the same colours keep their numbers
from one move to the next), and no pixel changes on the way to the file. A
picture of 16 colours or fewer is written with 4 bits a pixel. Only a
picture of more than 256 colours (no board today) is mapped onto a palette
that Pillow chooses (``quantized``).

Why not ``Image.save``: deflating a million pixels at a level that
compresses well takes tens of milliseconds, and from one move to the next
almost every row of a board is the same. So the rows are cut into bands of
``BAND_ROWS``; each band is deflated on its own compressor, primed with the
32 KB of rows before it (what deflate's window would hold had the picture
been deflated in one go, so the band may refer to them) and ended
byte-aligned; a band already deflated after the same rows is not deflated
again. The pieces joined make one ordinary zlib stream.

What was measured (Imperial 2030 boards, 1200x900, ``benchmarks/picture_bytes.py``):
deflate level 3 in 16-row bands each on its own made some 60 KB; level 8
in 32-row bands primed with the rows before makes some 39 KB (level 9 is
3% smaller for twice the time). Every row is left unfiltered: on flat
palette pictures PNG's filters (Sub, Up, chosen row by row) made the file
larger, not smaller (deflate already finds a row that repeats the row above).
"""
from __future__ import annotations

import hashlib
import struct
import zlib

from PIL import Image

from pbem.render.boundedcache import Remembered

PALETTE_COLOURS = 64  # of a picture of more than 256 colours, mapped onto a palette chosen by Pillow
COMPRESS_LEVEL = 8
BAND_ROWS = 32
WINDOW = 32 << 10  # deflate's window: how far back a band may refer
SIGNATURE = b"\x89PNG\r\n\x1a\n"
ZLIB_HEADER = b"\x78\xda"  # deflate, 32K window, no dictionary, best compression (the check bits: a multiple of 31)
LAST_BLOCK = zlib.compressobj(COMPRESS_LEVEL, zlib.DEFLATED, -15).flush()  # an empty final block: ends the stream

# Deflated bands by a digest of the band and one of the bands before it that its compressor was primed with.
# Bound: 8 MB (a band's deflated form is a few hundred bytes to 3 KB: some 5000 bands, every band of 150
# boards).
BANDS: Remembered[tuple[bytes, bytes], bytes] = Remembered("deflated bands", 8 << 20, lambda _, done: len(done) + 100)


def encode(image: Image.Image) -> bytes:
    """``image`` (RGB) as a palette PNG of exactly its colours (see the module doc)."""
    width, height = image.size
    colours, small = exact(image)
    depth = 4 if len(colours) <= 16 else 8
    pixels = small.tobytes("raw", "P;4") if depth == 4 else small.tobytes()
    return b"".join((
        SIGNATURE,
        _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, 3, 0, 0, 0)),
        _chunk(b"PLTE", b"".join(bytes(rgb) for rgb in colours)),
        _chunk(b"IDAT", _deflated(pixels, len(pixels) // height)),
        _chunk(b"IEND", b""),
    ))


def exact(image: Image.Image) -> tuple[list[tuple[int, int, int]], Image.Image]:
    """The picture's colours in order, and the picture as indexes into them (Pillow's palette, if more than 256)."""
    found = image.getcolors(256)
    if found is None:
        return _sorted_palette(quantized(image))
    colours = sorted((rgb[0], rgb[1], rgb[2]) for _, rgb in found if isinstance(rgb, tuple))  # RGB: tuples
    palette = Image.new("P", (1, 1))
    palette.putpalette([value for rgb in colours for value in rgb])
    return colours, image.quantize(palette=palette, dither=Image.Dither.NONE)


def _sorted_palette(small: Image.Image) -> tuple[list[tuple[int, int, int]], Image.Image]:
    """Pillow's palette in order of colour, and the pixels numbered by it (why sorted: see the module doc)."""
    palette = small.getpalette() or [0, 0, 0]
    colours = [(palette[i], palette[i + 1], palette[i + 2]) for i in range(0, len(palette) - 2, 3)]
    order = sorted(range(len(colours)), key=lambda index: colours[index])
    rank = [0] * 256
    for new, old in enumerate(order):
        rank[old] = new
    return [colours[old] for old in order], small.point(rank)


def quantized(image: Image.Image) -> Image.Image:
    """The picture on a palette of at most ``PALETTE_COLOURS`` (Pillow's fast octree on every other pixel of
    every other row, then the whole picture mapped onto it without dithering)."""
    width, height = image.size
    sample = image.resize((max(1, width // 2), max(1, height // 2)), Image.Resampling.NEAREST)
    palette = sample.quantize(colors=PALETTE_COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    return image.quantize(palette=palette, dither=Image.Dither.NONE)


def _deflated(pixels: bytes, width: int) -> bytes:
    """The rows of ``pixels`` (``width`` bytes each, each after its filter byte 0: none) as one zlib stream of
    bands deflated one by one (see the module doc).

    A band is known by its digest and by the digests of the bands before it that deflate's window reaches
    into: the same bands give the same primer, and the 32 KB primer is not hashed again for every band (it
    was two thirds of the hashing, some 0.7 ms of a picture).
    """
    rows = [pixels[start:start + width] for start in range(0, len(pixels), width)]
    data = b"".join(b"\0" + row for row in rows)
    pieces = [ZLIB_HEADER]
    step = (width + 1) * BAND_ROWS
    behind = -(-WINDOW // step)  # the bands the window of a band's start reaches back into
    digests: list[bytes] = []
    for start in range(0, len(data), step):
        band, primed = data[start:start + step], data[max(0, start - WINDOW):start]
        digests.append(_digest(band))
        key = (digests[-1], _digest(b"".join(digests[-1 - behind:-1])))
        done = BANDS.get(key)
        if done is None:
            done = BANDS.put(key, _squeezed(band, primed))
        pieces.append(done)
    pieces += [LAST_BLOCK, struct.pack(">I", zlib.adler32(data))]
    return b"".join(pieces)


def _digest(data: bytes) -> bytes:
    """What a band is known by: SHA-256, so that two bands alike in digest are the same band (SHA-256 rather
    than BLAKE2b: processors that compute it themselves make it twice as fast, some 2 ms of a picture)."""
    return hashlib.sha256(data).digest()


def _squeezed(band: bytes, primed: bytes) -> bytes:
    """``band`` deflated as if it followed ``primed`` in one stream, ended on a byte (not a final block)."""
    if primed:
        squeezer = zlib.compressobj(COMPRESS_LEVEL, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY, primed)
    else:
        squeezer = zlib.compressobj(COMPRESS_LEVEL, zlib.DEFLATED, -15)
    return squeezer.compress(band) + squeezer.flush(zlib.Z_SYNC_FLUSH)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
