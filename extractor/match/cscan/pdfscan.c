/* ---- PDF text (spec §5): the scan — find._Scanner with pdf=True, its anchors (a prefix cut and
 * read below, its own column's), and the second pass with the document's evidence; the rules and
 * joins it applies are cscan/pdf.c's ---- */

/* _ANCHOR_PDF at byte p ("10." there): 10\.(?:(?:[ \t]+(?:\r?\n[ \t]*)?|\r?\n[ \t]*)(?!10\.[0-9]))?
 * ([0-9]+(?:\.[0-9]+)*)(?:[ \t]?(/|%2[Ff]|:))? — 0 when it does not match; else 1 with the end
 * of the digits *e, the separator *sep (0 for none) and the suffix start *q, *first the digits of
 * the registrant's first part. */
static int pdf_anchor(const Buf *B, Py_ssize_t p, Py_ssize_t *e, char *sep, Py_ssize_t *q, Py_ssize_t *first)
{
    const unsigned char *b = B->b;
    Py_ssize_t n = B->n, j = p + 3, w = j;
    /* either alternative is optional blanks, then an optional line break and its indent */
    while (w < n && (b[w] == ' ' || b[w] == '\t'))
        w++;
    Py_ssize_t w2 = w;
    if (w2 < n && b[w2] == '\r')
        w2++;
    if (w2 < n && b[w2] == '\n') {
        w2++;
        while (w2 < n && (b[w2] == ' ' || b[w2] == '\t'))
            w2++;
        w = w2;
    }
    if (w > j && w + 3 < n && b[w] == '1' && b[w + 1] == '0' && b[w + 2] == '.' && is_digit(b[w + 3]))
        w = j; /* "1–10. 10.1038/x": a page range ending in 10, then a DOI */
    if (!(w < n && is_digit(b[w])))
        return 0;
    Py_ssize_t i = w;
    while (i < n && is_digit(b[i]))
        i++;
    *first = i - w;
    while (i + 1 < n && b[i] == '.' && is_digit(b[i + 1])) {
        i++;
        while (i < n && is_digit(b[i]))
            i++;
    }
    *e = i;
    *sep = 0;
    Py_ssize_t at = i < n && (b[i] == ' ' || b[i] == '\t') ? i + 1 : i; /* [ \t]? before the separator */
    for (int tries = 0; tries < 2 && !*sep; tries++, at = i) {
        if (at < n && b[at] == '/')
            *sep = '/', *q = at + 1;
        else if (at + 2 < n && b[at] == '%' && b[at + 1] == '2' && (b[at + 2] == 'F' || b[at + 2] == 'f'))
            *sep = '%', *q = at + 3;
        else if (at < n && b[at] == ':')
            *sep = ':', *q = at + 1;
    }
    return 1;
}

/* The characters of bytes [a, z) into r (at most cap), back from z: r[0] is the last. */
static Py_ssize_t read_back(const Buf *B, Py_ssize_t a, Py_ssize_t z, cp_t *r, Py_ssize_t *off, Py_ssize_t cap)
{
    Py_ssize_t m = 0;
    while (z > a && m < cap) {
        z -= dec_back(B->b, z, &r[m]);
        off[m++] = z;
    }
    return m;
}

/* left.BROKEN_RESOLVER.search(text, p - 300, p) for a token "org/" or ".org/" of tn characters
 * before p: "doi.\norg/", "https://doi.\n.org/" or "doi.   " (a column gap) within 300 characters. */
static int broken_resolver(const Buf *B, Py_ssize_t p, Py_ssize_t tn)
{
    if (tn != 4 && tn != 5) /* the token is "org/" or ".org/": told before anything is read back */
        return 0;
    cp_t r[301];
    Py_ssize_t off[301];
    Py_ssize_t m = read_back(B, 0, p, r, off, 300);
    if (!((tn == 4 && rlit(r, m, 0, "org/")) || (tn == 5 && rlit(r, m, 0, ".org/"))))
        return 0;
    /* doi\.?[ \t]*\r?\n[ \t]*(?:\.?org/)\Z */
    Py_ssize_t k = 4;
    if (k < m && r[k] == '.')
        k++;
    while (k < m && (r[k] == ' ' || r[k] == '\t'))
        k++;
    if (k < m && r[k] == '\n') {
        k++;
        if (k < m && r[k] == '\r')
            k++;
        while (k < m && (r[k] == ' ' || r[k] == '\t'))
            k++;
        if (k < m && r[k] == '.')
            k++;
        if (rlit(r, m, k, "doi"))
            return 1;
    }
    /* doi\.[ \t]{3,} anywhere in the window */
    for (Py_ssize_t e = 0; e + 7 <= m; e++) {
        if (!(r[e] == ' ' || r[e] == '\t'))
            continue;
        Py_ssize_t g = e;
        while (g < m && (r[g] == ' ' || r[g] == '\t'))
            g++;
        if (g - e >= 3 && rlit(r, m, g, "doi."))
            return 1;
        e = g - 1;
    }
    return 0;
}

/* left.LEFT_SPACED_RESOLVER.search in the 48 characters before p: a resolver whose DOI went to
 * the next line or after a space. Its form, with *startp, or -1. */
static int spaced_resolver(const Buf *B, Py_ssize_t p, Py_ssize_t *startp)
{
    cp_t r[48];
    Py_ssize_t off[48];
    Py_ssize_t m = read_back(B, 0, p, r, off, 48), k = 0, nls = 0;
    while (k < m && is_space(r[k]) && (r[k] != '\n' || nls++ == 0))
        k++;
    if (!rlit(r, m, k, "doi.org/"))
        return -1;
    Py_ssize_t e = k + 8;
    int form = F_RESOLVER;
    if (rlit(r, m, e, "www."))
        e += 4;
    if (rlit(r, m, e, "dx.")) {
        e += 3;
        form = F_DX_RESOLVER;
    }
    Py_ssize_t h = e, sl = 0;
    while (h < m && r[h] == '/' && sl < 4)
        h++, sl++;
    if (sl >= 1 && sl <= 3 && h < m && r[h] == ':') {
        if (rlit(r, m, h + 1, "https"))
            e = h + 6;
        else if (rlit(r, m, h + 1, "http"))
            e = h + 5;
    }
    *startp = off[e - 1];
    return form;
}

/* One reading of a PDF text window (find._Scanner.scan with pdf=True): its hits, unfiltered, to
 * out (and through the sink's collector, its shortDOIs); uncertain starts with them; counts of
 * candidates too long in the first pass only (find._hits: the second pass has no stats).
 * *order: whether the hits must be sorted (a DOI joined across lines leaves later pieces). */
/* Where the run that holds byte q ends, read once for all the anchors in it: [from, to) a run
 * (to: its first run_end character, or the text's end), [ascii, to) of it ASCII. */
typedef struct {
    Py_ssize_t from, to, ascii;
} RunEnd;

/* Whether the run from q (a character boundary) holds more than SHORT_WINDOW + 1 characters:
 * the short window read from q ends inside it, where no line break can be joined. */
static int long_run(const Buf *B, RunEnd *re, Py_ssize_t q)
{
    if (q < re->from || q > re->to) {
        re->from = q;
        re->to = run_stop(B, q, &re->ascii);
    }
    Py_ssize_t bytes = re->to - q;
    if (bytes <= SHORT_WINDOW + 1)
        return 0;
    if (q >= re->ascii || bytes > 4 * (SHORT_WINDOW + 2))
        return 1;
    Py_ssize_t chars = 0;
    for (Py_ssize_t i = q; i < re->to && chars <= SHORT_WINDOW + 1; i++)
        chars += (B->b[i] & 0xC0) != 0x80;
    return chars > SHORT_WINDOW + 1;
}

/* pdftext.elsewhere for the anchor at byte p that pdf_anchor read: its registrant's code, after
 * a line break or a column gap, is another -layout column's (the DOI's rest goes on elsewhere). 1,
 * 0, or -2 on an error. */
static int elsewhere(const Buf *B, Py_ssize_t p, BlockColumns *C)
{
    const unsigned char *b = B->b;
    Py_ssize_t w = p + 3, run = 0, nl = -1;
    int cut = 0;
    for (; w < B->n && (b[w] == ' ' || b[w] == '\t' || b[w] == '\r' || b[w] == '\n'); w++) {
        run = b[w] == ' ' || b[w] == '\t' ? run + 1 : 0;
        cut = cut || b[w] == '\n' || run >= 3;
        if (b[w] == '\n')
            nl = w;
    }
    if (!cut)
        return 0;
    Py_ssize_t c = continuation(B, p + 3, C);
    if (c != -1)
        return c == -2 ? -2 : c != w;
    if (nl < 0)
        return 0;
    /* no block of the next line goes on in the DOI's column: the code is the DOI's only there
     * (its block's start, or a hanging indent in), and not the other column's */
    Py_ssize_t nh = block_starts(B, line_start_of(B, p + 3), p + 3, &C->here, &C->hcap);
    if (nh <= 0)
        return nh < 0 ? -2 : 0;
    Py_ssize_t c0 = C->here[nh - 1], x = 0;
    for (Py_ssize_t i = nl + 1; i < w;) {
        cp_t ch;
        i += b[i] < 0x80 ? 1 : dec(b, B->n, i, &ch);
        x++;
    }
    return !(c0 - COLUMN_SLACK <= x && x <= c0 + HANGING_INDENT);
}

/* pdf.far_anchor at the "10." at byte p, through far_anchor_call (set_far): the byte where its
 * registrant's code starts on a line below, with the suffix start *q, the separator *sep and
 * the digits of the code's first part *first; -1 for none, -2 on an error. */
static Py_ssize_t far_anchor(const Buf *B, Py_ssize_t p, Py_ssize_t *q, char *sep, Py_ssize_t *first)
{
    Py_ssize_t ws;
    /* "410." ends a page range: a "10." glued to a digit starts no DOI (spec §2) */
    if (far_anchor_call == NULL || (p > 0 && is_digit(B->b[p - 1])) || !cut_here(B, p + 3) ||
        !worth_a_walk(B, p + 3, 1, &ws))
        return -1;
    Py_ssize_t we = chars_on(B, p + 3, far_chars);
    PyObject *text = PyMemoryView_FromMemory((char *)B->b + ws, we - ws, PyBUF_READ);
    if (text == NULL)
        return -2;
    PyObject *r = PyObject_CallFunction(far_anchor_call, "On", text, p - ws);
    Py_DECREF(text);
    if (r == NULL)
        return -2;
    Py_ssize_t at = -1, end = -1;
    int bad = r != Py_None && !PyArg_ParseTuple(r, "nn", &at, &end);
    Py_DECREF(r);
    if (bad)
        return -2;
    if (at < 0)
        return -1;
    at += ws;
    *q = end + ws;
    *sep = B->b[*q - 1] == '/' ? '/' : '%';
    Py_ssize_t i = at;
    while (i < B->n && is_digit(B->b[i]))
        i++;
    *first = i - at;
    return at;
}

static int pdf_pass(const Buf *B, Sink *k, PFound *out, const Evidence *ev, Pages *pg, int first_pass, int *order)
{
    /* what the anchors' left contexts learn of the text, carried from one to the next */
    LeftCache lc = {0, 0, 0, -1};
    Buf cached = *B;
    if (cached.lc == NULL)
        cached.lc = &lc;
    B = &cached;
    RunEnd re = {-1, -1, -1};
    const unsigned char *b = B->b;
    Py_ssize_t n = B->n, pos = 0, resume = 0, last_end = k->lo;
    Logical L = {0};
    BlockColumns C = {0};
    Py_ssize_t *xa = NULL, *xb = NULL, nx = 0, xcap = 0, xcap1 = 0; /* later pieces of joined DOIs */
    int rc = -1;
    while ((pos = next_anchor(b, n, pos)) >= 0) {
        Py_ssize_t p = pos++;
        if (b[p + 2] != '.') {
            if (short_at(B, k, p) < 0)
                goto done;
            continue;
        }
        if (p < resume)
            continue;
        Py_ssize_t e, q = 0, first, far = -1;
        char sep = 0;
        int got = pdf_anchor(B, p, &e, &sep, &q, &first);
        if (got && !sep) /* a run with no separator: in PDF text "10.10. 1016/" has an anchor inside it */
            resume = e - 2 > p + 1 ? e - 2 : p + 1;
        if (got && sep) {
            resume = q;
            int astray = elsewhere(B, p, &C);
            if (astray < 0)
                goto done;
            if (astray)
                got = 0; /* its code is another column's: no anchor; far_anchor reads its own */
        }
        if (!got || (sep != '/' && sep != '%')) { /* none with "/": its registrant's code below? */
            Py_ssize_t fq, ffirst;
            char fsep;
            far = far_anchor(B, p, &fq, &fsep, &ffirst);
            if (far == -2)
                goto done;
            if (far >= 0)
                q = fq, sep = fsep, first = ffirst;
            else if (!got || !sep)
                continue; /* no anchor (pdf.far_anchor found none either); ':' is EIDR's */
        }
        int inside = 0;
        for (Py_ssize_t x = 0; x < nx && !inside; x++)
            inside = xa[x] <= p && p < xb[x];
        if (p < last_end || inside || (empty_suffix(B, p, q) && long_run(B, &re, q)))
            continue; /* a run that ends within the short window is read for its join (its guess) */
        Py_ssize_t start;
        int form = anchor_form(B, p, sep, first, 1, &start);
        if (form < 0)
            continue;
        int mine = p >= k->lo && p < k->hi && p >= k->rlo && p < k->rhi;
        Py_ssize_t A = far < 0 ? q - p : 3 + q - far, qq, skip, cut;
        L.n = L.np = 0;
        if (logical_room(&L, A + MAX_DOI_CHARS + 2) < 0)
            goto done;
        for (Py_ssize_t t = 0; t < A; t++) {
            Py_ssize_t at = far < 0 || t < 3 ? p + t : far + t - 3; /* "10." and the code below */
            L.s[t] = b[at];
            L.bo[t] = at;
            L.be[t] = at + 1;
        }
        /* a cut in the first characters of a run that goes on past the short window ends the
         * name there, as in plain text: no break is inside what the window reads */
        Py_ssize_t have = read_run(B, q, L.s, L.bo, A, form, &qq, &skip, &cut, 1);
        if (cut >= 0 && !long_run(B, &re, q)) /* a break may follow within the window: read it */
            have = read_run(B, q, L.s, L.bo, A, form, &qq, &skip, &cut, 0);
        if (have < 0) {
            last_end = skip; /* dropped with the rest of its token, never truncated */
            if (first_pass && drop_token(k, p, skip) < 0)
                goto done;
            continue;
        }
        L.n = A + have;
        for (Py_ssize_t t = A; t < L.n; t++)
            L.be[t] = t + 1 < L.n ? L.bo[t + 1] : qq;
        int unc = 0;
        if ((far >= 0 && add_piece(&L, p, p + 3) < 0) || add_piece(&L, far < 0 ? p : far, qq) < 0 ||
            (cut < 0 && join_pieces(B, &L, ev, pg, &C, &unc) < 0))
            goto done;
        if (unc && first_pass) {
            if (reserve((void **)&out->unc, &out->ucap, out->nu + 1, sizeof(Py_ssize_t)) < 0)
                goto done;
            out->unc[out->nu++] = start;
        }
        if (L.n > MAX_LOGICAL) {
            k->too_long += mine && first_pass;
            continue;
        }
        Py_ssize_t raw, nn = finish_name(B, L.s, L.n, A, form, start, p, cut < 0 ? -1 : A + cut, 1, &raw);
        if (nn < 0)
            goto done;
        if (nn == 0)
            continue; /* an empty suffix */
        Py_ssize_t end = L.be[raw - 1];
        if (end < p) /* the rest heads the page's other column, above (layout.column_top) */
            for (Py_ssize_t j = 0; j < L.np; j++)
                if (L.pa[j] >= p && L.pb[j] > end)
                    end = L.pb[j];
        if (collect_hit(out, start, end, form, L.s, nn) < 0)
            goto done;
        /* the pieces up to the end: the first ends the hit's reading, later ones are passed over */
        Py_ssize_t kept = 0;
        while (kept < L.np && L.pa[kept] < end)
            kept++;
        last_end = L.pb[0] < end ? L.pb[0] : end;
        if (kept > 1 || nx) {
            Py_ssize_t m = 0;
            for (Py_ssize_t x = 0; x < nx; x++)
                if (xb[x] > p) {
                    xa[m] = xa[x];
                    xb[m++] = xb[x];
                }
            nx = m;
            if (reserve((void **)&xa, &xcap, nx + kept, sizeof(Py_ssize_t)) < 0 ||
                reserve((void **)&xb, &xcap1, nx + kept, sizeof(Py_ssize_t)) < 0)
                goto done;
            for (Py_ssize_t j = 1; j < kept; j++) {
                xa[nx] = L.pa[j];
                xb[nx++] = L.pb[j] < end ? L.pb[j] : end;
            }
        }
    }
    *order = nx > 0;
    rc = 0;
done:
    PyMem_Free(L.s);
    PyMem_Free(L.bo);
    PyMem_Free(L.be);
    PyMem_Free(L.pa);
    PyMem_Free(L.pb);
    PyMem_Free(C.here);
    PyMem_Free(C.below);
    PyMem_Free(C.above);
    PyMem_Free(xa);
    PyMem_Free(xb);
    return rc;
}

static int cmp_ssize(const void *x, const void *y)
{
    Py_ssize_t a = *(const Py_ssize_t *)x, b = *(const Py_ssize_t *)y;
    return (a > b) - (a < b);
}

static int cmp_phit(const void *x, const void *y)
{
    const PHit *a = x, *b = y;
    if (a->start != b->start)
        return (a->start > b->start) - (a->start < b->start);
    if (a->end != b->end)
        return (a->end > b->end) - (a->end < b->end);
    return (a->name > b->name) - (a->name < b->name); /* found first, first */
}

/* find._hits for PDF text: a first reading; a second with the document's evidence when some break
 * was left unjoined on a guess (spec §5). The hits to the sink's table and list, in find_spans'
 * order, keyed as find._PDF_KEYS keys them (`rekey`: the rehyphenation of pdf.rehyphenate, given
 * each canonical key). */
static int pdf_scan(const Buf *B, Sink *k, PyObject *rekey)
{
    PFound f1 = {0}, f2 = {0}, *fin = &f1;
    Pages pg = {0};
    Evidence ev = {0};
    ev.pages = &pg;
    int order = 0, rc = -1;
    k->collect = &f1;
    if (pdf_pass(B, k, &f1, NULL, &pg, 1, &order) < 0)
        goto done;
    if (f1.n && f1.nu) {
        if ((ev.dois = PySet_New(NULL)) == NULL || (ev.shapes = PySet_New(NULL)) == NULL ||
            (ev.parents = PySet_New(NULL)) == NULL)
            goto done;
        qsort(f1.unc, (size_t)f1.nu, sizeof(Py_ssize_t), cmp_ssize);
        for (Py_ssize_t i = 0; i < f1.n; i++) {
            PHit *h = &f1.hit[i];
            PyObject *key = pdf_key(f1.names + h->name, h->len);
            int certain = bsearch(&h->start, f1.unc, (size_t)f1.nu, sizeof(Py_ssize_t), cmp_ssize) == NULL;
            int bad = key == NULL || evidence_add(&ev, key, certain) < 0;
            Py_XDECREF(key);
            if (bad)
                goto done;
        }
        k->collect = &f2;
        if (pdf_pass(B, k, &f2, &ev, &pg, 0, &order) < 0)
            goto done;
        fin = &f2;
    }
    k->collect = NULL;
    if (order)
        qsort(fin->hit, (size_t)fin->n, sizeof(PHit), cmp_phit);
    Py_ssize_t last = -1;
    for (Py_ssize_t i = 0; i < fin->n; i++) {
        PHit *h = &fin->hit[i];
        if (h->start >= k->hi)
            continue;
        last = h->end; /* the end of the last hit the window reports (windows.PythonMatcher) */
        if (h->start < k->rlo || h->start >= k->rhi)
            continue;
        PyObject *key = pdf_key(fin->names + h->name, h->len);
        Py_ssize_t kn;
        const char *kb = key == NULL ? NULL : PyUnicode_AsUTF8AndSize(key, &kn);
        if (kb != NULL && rekey != Py_None && may_rehyphenate(kb, kn)) {
            Py_SETREF(key, PyObject_GetItem(rekey, key));
            kb = key == NULL ? NULL : PyUnicode_AsUTF8AndSize(key, &kn);
        }
        int bad = kb == NULL || emit_key(k, B, h->start, h->end, h->form, kb, kn) < 0;
        Py_XDECREF(key);
        if (bad)
            goto done;
    }
    if (last > k->last_end)
        k->last_end = last;
    rc = 0;
done:
    k->collect = NULL;
    evidence_free(&ev);
    pages_free(&pg);
    pfound_free(&f1);
    pfound_free(&f2);
    return rc;
}
