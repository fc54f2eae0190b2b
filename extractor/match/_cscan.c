/* The C matcher: matcher.py's rules (spec §1–§5) on raw UTF-8 bytes, for bulk scans of plain
 * text, PDF text and HTML.
 *
 * A port of matcher.py's _Scanner: the same anchor, left-context, end and tail rules, the same
 * canonical key (canonical.py), with the quirks of Python's `re` that those rules depend on
 * (IGNORECASE folds İ ı ſ K into i s k; \s and \d are Unicode). Working on bytes, a block needs
 * no decoding: characters are decoded only in a window around each `10.` anchor. Invalid UTF-8
 * bytes read as U+FFFD, one per byte, as the pipeline's surrogateescape + clean do.
 * tests/test_cscan.py and tests/test_chtml.py hold it to find.find_spans; its tables are
 * checked against the Python ones, by content, when native.py imports it (tables()).
 *
 * Built as one unit (static functions, inlined across the parts), one file per concern:
 *   cscan/utf8.h    UTF-8 decoding and encoding (shared with pipeline/_ctable.c)
 *   cscan/sink.h    the protocol by which hits reach a table the matcher does not own
 *   cscan/mem.h     growing buffers (shared with pipeline/_ctable.c)
 *   cscan/chars.c   character classes, as Python's re sees them
 *   cscan/left.c    the left context of an anchor: its display form and where the hit starts
 *   cscan/ends.c    where a name ends: first cut, end rules, brackets, publisher tails
 *   cscan/key.c     the canonical key, and a hit's raw text
 *   cscan/plain.c   the plain-text scan and shortDOIs, and the sink each hit goes to
 *   cscan/pdf.c     PDF text: joins across lines, columns and spaces (spec §5)
 *   cscan/pdfscan.c PDF text: its anchors and passes, with the document's evidence
 *   cscan/links.c   a link is one occurrence (spec §6): the pairs a view builder's links make
 *   cscan/html.c    HTML: the three views built and searched (spec §3, §5)
 *   cscan/wikitext.c  wikitext: its view built and searched as HTML's are (spec §7)
 *   cscan/tex.c     LaTeX and BibTeX: likewise
 *   cscan/csv.c     CSV and TSV: likewise
 *   cscan/column.c  canonicalize over an Arrow string column's buffers
 *   cscan/ported.h  the Python rules the port follows, as text, for the check at import
 *   cscan/module.c  the module's glue and tables()
 * No state outside a call: scratch storage lives in each call's frame or heap.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <assert.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "cscan/sink.h"
#include "cscan/utf8.h"
#include "cscan/mem.h"
#include "cscan/tables.h"

#define IS_URL(f) ((f) == F_RESOLVER || (f) == F_DX_RESOLVER || (f) == F_HANDLE || (f) == F_OTHER_URL || (f) == F_PERCENT)
#define IS_LABELLED(f) ((f) >= F_LABEL && (f) <= F_INFO_URI)
#define IS_RESOLVER(f) ((f) == F_RESOLVER || (f) == F_DX_RESOLVER || (f) == F_HANDLE)

#define FIRST_WINDOW 16 /* characters read before the short window, for an early cut */
#define MAX_LOGICAL (MAX_DOI_CHARS + 2 * SHORT_WINDOW)
#define RUN_CAP (MAX_LOGICAL + MAX_DOI_CHARS + 8) /* an anchor of up to MAX_LOGICAL, then a whole run */

#include "cscan/chars.c"
#include "cscan/left.c"
#include "cscan/ends.c"
#include "cscan/key.c"
#include "cscan/plain.c"
#include "cscan/pdf.c"
#include "cscan/pdfscan.c"
#include "cscan/links.c"
#include "cscan/html.c"
#include "cscan/wikitext.c"
#include "cscan/csv.c"
#include "cscan/tex.c"
#include "cscan/column.c"
#include "cscan/ported.h"

_Static_assert(sizeof(FORM_NAMES) / sizeof(*FORM_NAMES) == F_COUNT + 1, "a form name for each F_ index");

#include "cscan/module.c"
