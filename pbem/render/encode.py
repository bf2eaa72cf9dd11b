"""A board picture as PNG bytes: its palette chosen by Pillow, the file written here, band by band.

Why not ``Image.save``: zlib was the largest single cost of a picture (a
1200x900 board is a million bytes to deflate), and from one move to the next
almost every row of a board is the same. So the rows are cut into bands of
``BAND_ROWS``; each band is deflated on its own (its own fresh compressor,
ended byte-aligned), and a band seen before is not deflated again. Deflate
segments that refer to nothing before them may be joined into one stream,
so the file is an ordinary PNG: the picture's pixels do not depend on how it
was compressed, only its bytes (a little larger) do.

The palette and the pixels' mapping onto it are Pillow's, as before: its fast
octree on every other pixel of every other row, then the whole picture mapped
onto that palette without dithering.
"""
from __future__ import annotations

import struct
import zlib

from PIL import Image

from pbem.render.remembered import Remembered

PALETTE_COLOURS = 64
COMPRESS_LEVEL = 3
BAND_ROWS = 16
SIGNATURE = b"\x89PNG\r\n\x1a\n"
ZLIB_HEADER = b"\x78\x01"  # deflate, 32K window, no dictionary (the check bits make it a multiple of 31)
LAST_BLOCK = zlib.compressobj(COMPRESS_LEVEL, zlib.DEFLATED, -15).flush()  # an empty final block: ends the stream

# Deflated bands by their Adler-32 and length (quick to work out, and needed for the stream anyway); each
# answer holds the band too, compared whole before it is used. Bound: 32 MB (a band of a 1200-pixel-wide
# board is 19 KB and its deflated form a few hundred bytes: some 1600 bands, every band of 28 boards).
BANDS: Remembered[tuple[int, int], tuple[bytes, bytes]] = Remembered(
    "deflated bands", 32 << 20, lambda _, done: len(done[0]) + len(done[1]))
ADLER_BASE = 65521  # Adler-32's modulus


def encode(image: Image.Image) -> bytes:
    """``image`` (RGB) as a palette PNG of its few flat colours (see the module doc)."""
    small = quantized(image)
    width, height = small.size
    colours, pixels = _sorted_palette(small)
    return b"".join((
        SIGNATURE,
        _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)),
        _chunk(b"PLTE", colours),
        _chunk(b"IDAT", _deflated(pixels, width)),
        _chunk(b"IEND", b""),
    ))


def _sorted_palette(small: Image.Image) -> tuple[bytes, bytes]:
    """The palette in order of colour, and the pixels' indexes into it.

    Why sorted: the quantizer numbers its colours anew for every picture, so
    a row that looks the same would often be other bytes, and be deflated
    again; in order of colour, the same colours mostly keep their numbers.
    """
    palette = small.getpalette() or [0, 0, 0]
    colours = [tuple(palette[i:i + 3]) for i in range(0, len(palette) - 2, 3)]
    order = sorted(range(len(colours)), key=lambda index: colours[index])
    rank = [0] * 256
    for new, old in enumerate(order):
        rank[old] = new
    return b"".join(bytes(colours[old]) for old in order), small.tobytes().translate(bytes(rank))


def quantized(image: Image.Image) -> Image.Image:
    """The picture on a palette of at most ``PALETTE_COLOURS``: why sampled, see ``pbem.render.png``."""
    width, height = image.size
    sample = image.resize((max(1, width // 2), max(1, height // 2)), Image.Resampling.NEAREST)
    palette = sample.quantize(colors=PALETTE_COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    return image.quantize(palette=palette, dither=Image.Dither.NONE)


def _deflated(pixels: bytes, width: int) -> bytes:
    """The rows of ``pixels`` (each after its filter byte, 0: none, as suits a palette picture) as one zlib
    stream of independently deflated bands (see the module doc)."""
    pieces = [ZLIB_HEADER]
    check = zlib.adler32(b"")
    step = width * BAND_ROWS
    for start in range(0, len(pixels), step):
        band = b"\0" + b"\0".join([pixels[row:row + width] for row in range(start, min(start + step, len(pixels)), width)])
        own = zlib.adler32(band)
        check = _joined_adler(check, own, len(band))
        done = BANDS.get((own, len(band)))
        if done is None or done[0] != band:
            squeezer = zlib.compressobj(COMPRESS_LEVEL, zlib.DEFLATED, -15)
            done = BANDS.put((own, len(band)), (band, squeezer.compress(band) + squeezer.flush(zlib.Z_SYNC_FLUSH)))
        pieces.append(done[1])
    pieces += [LAST_BLOCK, struct.pack(">I", check)]
    return b"".join(pieces)


def _joined_adler(first: int, second: int, length: int) -> int:
    """The Adler-32 of two pieces of data one after the other, from each one's and the second's length.

    Its two sums both start at 1 and 0; run on after the first piece, the
    first sum of the second gains the first's less its start, and the second
    sum gains that once per byte of the second piece.
    """
    low_a, high_a, low_b, high_b = first & 0xFFFF, first >> 16, second & 0xFFFF, second >> 16
    low = (low_a + low_b - 1) % ADLER_BASE
    high = (high_a + high_b + length * (low_a - 1)) % ADLER_BASE
    return (high << 16) | low


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
