/* ---- CSV and TSV (spec §7): match/syntaxes/csvtext.py's view on UTF-8 bytes --------------------
 *
 * One view: each field's text between line breaks (a delimiter or a line end), a quoted field's
 * quotes dropped and its "" read as ", and a cell of a column headed DOI or DI behind a label
 * ("doi:" before it, standing for no raw text). The delimiter — TAB , ; or | — is told from the
 * first lines as csvtext.delimiter tells it. tests/test_cscan.py holds it to
 * find_spans(…, syntax="csv").
 */

/* A line boundary of Python's str.splitlines at the character c. */
static inline int splitlines_break(cp_t c)
{
    return c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || c == 0x1C || c == 0x1D || c == 0x1E || c == 0x85 ||
           c == 0x2028 || c == 0x2029;
}

/* csvtext.delimiter: of the first 10 lines of the first 65,536 characters, those not blank; the
 * candidate found outside quotes on every one of them, the most often (its least count). */
static char csv_delimiter(const unsigned char *b, Py_ssize_t n)
{
    static const char cands[4] = {'\t', ',', ';', '|'};
    Py_ssize_t best_count = 0, counts[4] = {0, 0, 0, 0}, mins[4] = {-1, -1, -1, -1};
    char best = ',';
    int lines = 0, blank = 1, quoted = 0, any = 0;
    Py_ssize_t chars = 0;
    for (Py_ssize_t i = 0; i <= n && lines < 10; chars++) {
        cp_t c = 0;
        int k = 1, end = i >= n || chars >= 65536;
        if (!end)
            k = dec(b, n, i, &c);
        if (end || splitlines_break(c)) {
            if (!blank) {
                for (int d = 0; d < 4; d++)
                    mins[d] = mins[d] < 0 || counts[d] < mins[d] ? counts[d] : mins[d];
                any = 1;
            }
            lines++;
            blank = 1, quoted = 0;
            memset(counts, 0, sizeof counts);
            if (end)
                break;
            if (c == '\r' && i + 1 < n && b[i + 1] == '\n') /* "\r\n" is one boundary */
                k = 2, chars++;
        } else {
            if (!is_space(c))
                blank = 0;
            if (c == '"')
                quoted = !quoted;
            else if (!quoted)
                for (int d = 0; d < 4; d++)
                    counts[d] += c == (cp_t)cands[d];
        }
        i += k;
    }
    for (int d = 0; any && d < 4; d++)
        if (mins[d] > 0 && mins[d] > best_count)
            best = cands[d], best_count = mins[d];
    return best;
}

/* Where an unquoted field from i ends: the next delimiter or line end ("\n", "\r"), or n. */
static inline Py_ssize_t csv_field_end(const unsigned char *b, Py_ssize_t n, Py_ssize_t i, char sep)
{
    while (i < n && b[i] != (unsigned char)sep && b[i] != '\n' && b[i] != '\r')
        i++;
    return i;
}

/* A header cell's text, stripped (whitespace, then U+FEFF) and lower-cased, is "doi" or "di". */
static int csv_doi_header(const unsigned char *t, Py_ssize_t len)
{
    Py_ssize_t a = skip_space(t, 0, len), z = skip_space_back(t, a, len);
    cp_t c;
    while (a < z && (dec(t, z, a, &c), c == 0xFEFF))
        a += 3;
    while (z > a && (dec_back(t, z, &c), c == 0xFEFF))
        z -= 3;
    if (z - a == 3)
        return (t[a] | 0x20) == 'd' && (t[a + 1] | 0x20) == 'o' && (t[a + 2] | 0x20) == 'i';
    return z - a == 2 && (t[a] | 0x20) == 'd' && (t[a + 1] | 0x20) == 'i';
}

static int csv_builder(const unsigned char *b, Py_ssize_t n, HView v[3], PyObject *unescape)
{
    (void)unescape;
    HView *view = &v[0];
    char sep = csv_delimiter(b, n);
    static const unsigned char label[] = "doi:";
    /* the header's DOI columns (a bit each, the first 4,096 columns) and its cells' text */
    unsigned char doi_cols[512];
    memset(doi_cols, 0, sizeof doi_cols);
    char *cell = NULL;
    Py_ssize_t cell_len = 0, cell_cap = 0, pos = 0, col = 0, row = 0;
    int rc = 0;
#define IS_DOI_COL(c) (row > 0 && (c) < 4096 && (doi_cols[(c) >> 3] >> ((c) & 7) & 1))
#define CELL(p, len)                                                                                  \
    do {                                                                                            \
        if (row == 0 && arena_room(&cell, cell_len, &cell_cap, (len)) == 0) {                       \
            if ((len) > 0) /* cell is NULL until a byte is kept: memcpy's arguments must not be */ \
                memcpy(cell + cell_len, (p), (size_t)(len));                                        \
            cell_len += (len);                                                                      \
        } else if (row == 0) {                                                                      \
            rc = -1;                                                                                \
        }                                                                                           \
    } while (0)
    while (rc == 0 && pos <= n) {
        Py_ssize_t end;
        cell_len = 0;
        if (pos < n && b[pos] == '"') {
            rc = hv_seg(view, b + pos, 0, pos, 1);
            Py_ssize_t i = pos + 1;
            if (rc == 0 && IS_DOI_COL(col))
                rc = hv_seg(view, label, 4, i, 0);
            while (rc == 0 && i < n) {
                Py_ssize_t q = find_byte(b, i, n, '"');
                if (q < 0) {
                    rc = hv_linear(view, b + i, n - i, i);
                    CELL(b + i, n - i);
                    i = n;
                    break;
                }
                rc = hv_linear(view, b + i, q - i, i);
                CELL(b + i, q - i);
                if (q + 1 < n && b[q + 1] == '"') {
                    if (rc == 0)
                        rc = hv_seg(view, (const unsigned char *)"\"", 1, q, 2);
                    CELL((const unsigned char *)"\"", 1);
                    i = q + 2;
                    continue;
                }
                if (rc == 0)
                    rc = hv_seg(view, b + q, 0, q, 1);
                i = q + 1;
                break;
            }
            end = csv_field_end(b, n, i, sep);
            if (rc == 0)
                rc = hv_linear(view, b + i, end - i, i);
        } else {
            end = csv_field_end(b, n, pos, sep);
            if (IS_DOI_COL(col) && end > pos)
                rc = hv_seg(view, label, 4, pos, 0);
            /* with its delimiter, which becomes the line break: one copy, and a row of unquoted
             * fields one segment (a break standing for one byte maps as the byte itself) */
            int with_sep = end < n && b[end] == (unsigned char)sep;
            if (rc == 0)
                rc = hv_linear(view, b + pos, end - pos + with_sep, pos);
            if (rc == 0 && with_sep)
                view->t[view->tn - 1] = '\n';
            CELL(b + pos, end - pos);
            if (rc == 0 && with_sep) {
                if (row == 0 && col < 4096 && csv_doi_header((const unsigned char *)cell, cell_len))
                    doi_cols[col >> 3] |= (unsigned char)(1 << (col & 7));
                col++;
                pos = end + 1;
                continue;
            }
        }
        if (rc == 0 && row == 0 && col < 4096 && csv_doi_header((const unsigned char *)cell, cell_len))
            doi_cols[col >> 3] |= (unsigned char)(1 << (col & 7));
        if (rc != 0 || end >= n)
            break;
        if (b[end] == (unsigned char)sep) {
            rc = hv_seg(view, (const unsigned char *)"\n", 1, end, 1);
            col++;
            pos = end + 1;
            continue;
        }
        Py_ssize_t eol = b[end] == '\r' && end + 1 < n && b[end + 1] == '\n' ? 2 : 1;
        rc = hv_seg(view, (const unsigned char *)"\n", 1, end, eol);
        pos = end + eol;
        row++;
        col = 0;
    }
#undef CELL
#undef IS_DOI_COL
    PyMem_Free(cell);
    return rc;
}

VIEW_ENTRIES(csv, csv_builder)
