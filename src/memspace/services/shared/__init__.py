"""What several use cases share, one layer below them: none of it imports a use-case package.

- the clock and identifiers (`SystemClock`, `new_id`);
- newest-first paging with cursors bound to their query (`Page`, `encode_cursor`, …);
- the operator's audit log (`AuditLog`);
- time slices: the `asOf` / `knownAt` arguments checked into a `TimeSlice`, the timeline of a
  memory (`time_slice`, `timeline`, `Period`), and what a `knownAt` read shows (`KnownView`);
- optimistic concurrency on facts (`check_version`, `after_lost_race`, `head_of`);
- `start_read`: a read started early on another thread while the call goes on;
- short ids: the shortest unique prefix shown for an id, and the id a prefix stands for
  (`short_ids`, `resolve_id`), and the ids an earlier read found for them (`read_before`).
"""

from memspace.services.shared.audit import AuditLog
from memspace.services.shared.clock import SystemClock, new_id
from memspace.services.shared.early_reads import start_read
from memspace.services.shared.id_prefixes import (
    HEAD_READ,
    SHORT_ID_CHARS,
    Find,
    among,
    document_id_of,
    document_in,
    memory_id_of,
    memory_ids,
    read_before,
    resolve_id,
    resolve_ids,
    short_ids,
)
from memspace.services.shared.known_view import TODAY_LEFT_OUT, KnownView, NoteJobs, past_record
from memspace.services.shared.paging import (
    Page,
    clamp_limit,
    decode_change_cursor,
    decode_cursor,
    encode_change_cursor,
    encode_cursor,
    fingerprint,
    utc_time,
)
from memspace.services.shared.time_travel import Period, chain, described, period_of, time_slice, timeline
from memspace.services.shared.version_checks import after_lost_race, check_version, head_of

__all__ = [
    "HEAD_READ",
    "SHORT_ID_CHARS",
    "TODAY_LEFT_OUT",
    "AuditLog",
    "Find",
    "KnownView",
    "NoteJobs",
    "Page",
    "Period",
    "SystemClock",
    "after_lost_race",
    "among",
    "chain",
    "check_version",
    "clamp_limit",
    "decode_change_cursor",
    "decode_cursor",
    "described",
    "document_id_of",
    "document_in",
    "encode_change_cursor",
    "encode_cursor",
    "fingerprint",
    "head_of",
    "memory_id_of",
    "memory_ids",
    "new_id",
    "past_record",
    "period_of",
    "read_before",
    "resolve_id",
    "resolve_ids",
    "short_ids",
    "start_read",
    "time_slice",
    "timeline",
    "utc_time",
]
