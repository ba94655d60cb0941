"""Make the README's screenshots from the browser tests' own (tests/artifacts/, SQLite runs):
the empty page below each view cropped away, the colours reduced to a palette, so each PNG is a
few tens of KB. `make screenshots` runs the tests that take them, then this."""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image, ImageChops

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "tests" / "artifacts"
OUT = ROOT / "docs" / "screenshots"
# docs/screenshots/<view>.png  <-  the browser test's screenshot that shows the view at work
VIEWS = {
    "space-picker": "space-picker-sqlite.png",
    "guided-save": "guided-save-correction-preview-sqlite.png",
    "upload": "upload-sqlite.png",
    "memory-graph": "memory-graph-detail-sqlite.png",
    "conflicts": "conflicts-sqlite.png",
    "console": "console-graph-sqlite.png",  # the same graph view, in the browser console
}
COLOURS = 64
MARGIN = 16


def shrink(source: Path, target: Path) -> int:
    """Crop the page's blank bottom and right, quantize, save; the size written, in bytes."""
    image = Image.open(source).convert("RGB")
    blank = Image.new("RGB", image.size, image.getpixel((image.width - 1, image.height - 1)))
    box = ImageChops.difference(image, blank).getbbox() or (0, 0, *image.size)
    image = image.crop((0, 0, min(image.width, box[2] + MARGIN), min(image.height, box[3] + MARGIN)))
    image.quantize(colors=COLOURS, method=Image.Quantize.MEDIANCUT).save(target, optimize=True)
    return target.stat().st_size


def main() -> int:
    missing = [name for name in VIEWS.values() if not (ARTIFACTS / name).is_file()]
    if missing:
        print(f"missing in {ARTIFACTS}: {', '.join(missing)} (run `make screenshots`, which runs "
              "the browser tests first)", file=sys.stderr)
        return 1
    OUT.mkdir(parents=True, exist_ok=True)
    for view, name in VIEWS.items():
        size = shrink(ARTIFACTS / name, OUT / f"{view}.png")
        print(f"docs/screenshots/{view}.png  {size / 1024:.0f} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
