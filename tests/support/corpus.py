"""Real files for the ingestion tests, made here: PDFs drawn with fpdf2 (encrypted with pypdf),
CSVs in two encodings, Markdown with code fences, and the broken files people really upload."""

from __future__ import annotations

import io
import zlib
from dataclasses import dataclass

from fpdf import FPDF
from PIL import Image
from pypdf import PdfReader, PdfWriter

PRICING = ("The Pro plan costs 49 euros per month. The Team plan costs 99 euros per month and "
           "includes single sign-on. Annual billing takes two months off either plan.")


def pdf(pages: list[str]) -> bytes:
    """One page per string, its text wrapped (an empty string makes a blank page)."""
    doc = FPDF()
    doc.set_font("helvetica", size=11)
    for text in pages:
        doc.add_page()
        if text:
            doc.multi_cell(0, 5, text)
    return bytes(doc.output())


def two_page_pdf() -> bytes:
    """A cover page with no text, and the prices on page 2."""
    return pdf(["", PRICING])


def encrypted_pdf() -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(two_page_pdf())))
    writer.encrypt("s3cret", algorithm="AES-256")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def truncated_pdf() -> bytes:
    """The first half of a good PDF, as a broken download leaves it."""
    whole = two_page_pdf()
    return whole[: len(whole) // 2]


def scanned_pdf() -> bytes:
    """A page holding only an image, as a scanner makes it: no text layer."""
    doc = FPDF()
    doc.add_page()
    doc.image(Image.new("RGB", (300, 200), "white"), x=10, y=10, w=150)
    return bytes(doc.output())


CSV_UTF8 = (
    '\ufeffproduct,price,notes\n'
    'Pro,49,"Includes ""priority"" support"\n'
    'Team,99,"Single sign-on,\naudit log"\n'
    'Café Plan,12,Ünïcode name\n'
).encode("utf-8")

CSV_LATIN1 = (
    'région;responsable;remarque\n'
    'Île-de-France;Hélène;"Réunion le ""jeudi"""\n'
    'Bretagne;Loïc;"Deux lignes\nen une cellule"\n'
).encode("latin-1")

MARKDOWN = b"""# Deploy guide

Deploys go out on Thursdays. Every deploy needs two approvals.

## Rollback

Run the rollback script from the ops repo:

```bash
# this is not a heading
./rollback.sh --to previous
```

Rollbacks are announced in #ops.
"""


@dataclass(frozen=True)
class Upload:
    name: str
    data: bytes


def binary_as_csv() -> Upload:
    """An image renamed to .csv."""
    out = io.BytesIO()
    Image.new("RGB", (20, 20), "red").save(out, format="PNG")
    return Upload("export.csv", out.getvalue())


def csv_with_a_long_line(size: int = 10 * 1024 * 1024) -> Upload:
    """A header, then one 10 MB line (a file whose line breaks were lost)."""
    return Upload("huge-line.csv", b"a,b\n" + b"x" * size + b"\n")


def hostile_pdf(pages: int = 10, operators: int = 100_000) -> bytes:
    """Small and slow: every page shares one compressed content stream of `operators` text
    operators (~4 KB; pypdf spends seconds per page on it, ~47 s for the ten)."""
    ops = b"BT /F1 1 Tf " + b"1 0 0 1 0 0 Tm (a) Tj " * (operators // 3) + b"ET"
    stream = zlib.compress(ops, 9)
    kids = " ".join(f"{4 + i} 0 R" for i in range(pages)).encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % pages,
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
        *[b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R "
          b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (4 + pages)] * pages,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.write(b"".join(b"%010d 00000 n \n" % offset for offset in offsets))
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
              % (len(objects) + 1, xref))
    return out.getvalue()
