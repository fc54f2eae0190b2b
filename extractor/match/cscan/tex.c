/* ---- LaTeX and BibTeX (spec §7): match/syntaxes/tex.py's view on UTF-8 bytes -------------------
 *
 * One view of the source: TeX escapes undone (`\_` `{\_}` `\textunderscore` → `_`, …), a command's
 * argument or a BibTeX field's value closed at its brace (or quote), braces balanced inside them
 * dropped, other braces line breaks, `\doi{` and a field named doi labels; LaTeX's comments
 * skipped outside verbatim arguments. The tokens are tex._TOKEN's, found in the order its search
 * finds them. tests/test_cscan.py holds it to find_spans(…, syntax="latex"/"bibtex").
 */

/* tex.py's frames of the brace stack. */
enum { TEX_GROUP, TEX_ARG, TEX_VERBATIM, TEX_VALUE, TEX_QUOTED, TEX_INNER };

enum { TT_NONE, TT_COMMENT, TT_ESC, TT_CMD, TT_FIELD, TT_OPEN, TT_CLOSE, TT_QUOTE };

/* The bytes that may start a token, and "=" (after a field's name). */
static const unsigned char TEX_SPECIAL[256] = {
    ['%'] = 1, ['{'] = 1, ['}'] = 1, ['"'] = 1, ['~'] = 1, ['$'] = 1, ['\\'] = 1, ['='] = 1,
};

/* The first byte at or after i that may start a token (TEX_SPECIAL), or n: 16 bytes a step
 * where SSE2 is (prose between the tokens is most of a source). */
static Py_ssize_t tex_skip(const unsigned char *b, Py_ssize_t i, Py_ssize_t n)
{
#ifdef __SSE2__
    const __m128i s1 = _mm_set1_epi8('%'), s2 = _mm_set1_epi8('{'), s3 = _mm_set1_epi8('}'), s4 = _mm_set1_epi8('"'),
                  s5 = _mm_set1_epi8('~'), s6 = _mm_set1_epi8('$'), s7 = _mm_set1_epi8('\\'), s8 = _mm_set1_epi8('=');
    while (i + 16 <= n) {
        __m128i v = _mm_loadu_si128((const __m128i *)(b + i));
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, s1), _mm_cmpeq_epi8(v, s2)),
                                              _mm_or_si128(_mm_cmpeq_epi8(v, s3), _mm_cmpeq_epi8(v, s4))),
                                 _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, s5), _mm_cmpeq_epi8(v, s6)),
                                              _mm_or_si128(_mm_cmpeq_epi8(v, s7), _mm_cmpeq_epi8(v, s8))));
        int mask = _mm_movemask_epi8(m);
        if (mask)
            return i + __builtin_ctz((unsigned)mask);
        i += 16;
    }
#endif
    while (i < n && !TEX_SPECIAL[b[i]])
        i++;
    return i;
}

/* A BibTeX field name's characters: [A-Za-z0-9_-] (tex._TOKEN's field). */
static inline int tex_name_char(unsigned char c) { return ascii_alpha(c) || is_digit(c) || c == '_' || c == '-'; }

/* The byte length of a whitespace character (\s) at b[i], or 0. */
static inline int tex_space(const unsigned char *b, Py_ssize_t n, Py_ssize_t i)
{
    if (i >= n)
        return 0;
    cp_t c;
    int k = dec(b, n, i, &c);
    return is_space(c) ? k : 0;
}

/* tex._WORDS: a word command's name and what it stands for. */
static const char *const TEX_WORDS[][2] = {
    {"textunderscore", "_"}, {"textless", "<"}, {"textgreater", ">"}, {"textasciitilde", "~"}, {"allowbreak", ""},
};

/* The token of tex._TOKEN at b[i] (i the start of a backslash, brace, …): its kind and length,
 * what an escape stands for (*rep), a command's being \doi (*label), a field's quote (*q). */
static int tex_token(const unsigned char *b, Py_ssize_t n, Py_ssize_t i, Py_ssize_t *len, const char **rep, int *label)
{
    unsigned char c = b[i], d = i + 1 < n ? b[i + 1] : 0;
    *len = 1;
    switch (c) {
    case '%':
        return TT_COMMENT;
    case '{':
        if (i + 3 < n && memcmp(b + i, "{\\_}", 4) == 0) {
            *len = 4, *rep = "_";
            return TT_ESC;
        }
        return TT_OPEN;
    case '}':
        return TT_CLOSE;
    case '"':
        return TT_QUOTE;
    case '~':
        *rep = " ";
        return TT_ESC;
    case '$':
        if ((d == '<' || d == '>') && i + 2 < n && b[i + 2] == '$') {
            *len = 3, *rep = d == '<' ? "<" : ">";
            return TT_ESC;
        }
        return TT_NONE;
    case '\\':
        break;
    default:
        return TT_NONE;
    }
    /* a backslash: an escape, a word, a command whose argument is read, or nothing */
    const char *one = NULL;
    switch (d) {
    case '_': one = "_"; break;
    case '%': one = "%"; break;
    case '#': one = "#"; break;
    case '&': one = "&"; break;
    case '$': one = "$"; break;
    case ',': one = " "; break;
    case '-': one = ""; break;
    case '\\': one = "\n"; break;
    }
    if (one != NULL) {
        *len = 2, *rep = one;
        return TT_ESC;
    }
    if (d == '~' && i + 3 < n && b[i + 2] == '{' && b[i + 3] == '}') {
        *len = 4, *rep = "~";
        return TT_ESC;
    }
    int k = tex_space(b, n, i + 1);
    if (k > 0) {
        *len = 1 + k, *rep = " ";
        return TT_ESC;
    }
    if (!ascii_alpha(d))
        return TT_NONE;
    Py_ssize_t e = i + 1;
    while (e < n && ascii_alpha(b[e]))
        e++;
    Py_ssize_t name = e - i - 1;
    for (size_t w = 0; name >= 8 && w < sizeof TEX_WORDS / sizeof *TEX_WORDS; w++) { /* each 8+ letters */
        if ((size_t)name == strlen(TEX_WORDS[w][0]) && memcmp(b + i + 1, TEX_WORDS[w][0], (size_t)name) == 0) {
            if (e + 1 < n && b[e] == '{' && b[e + 1] == '}')
                e += 2;
            else if (e < n && (b[e] == ' ' || b[e] == '\t'))
                e++;
            *len = e - i, *rep = TEX_WORDS[w][1];
            return TT_ESC;
        }
    }
    /* \doi, \url, \href, \nolinkurl before \s*{ (the name read whole: \urlx{ is none) */
    const unsigned char *w = b + i + 1;
    int is_cmd = (name == 3 && (memcmp(w, "doi", 3) == 0 || memcmp(w, "url", 3) == 0)) ||
                 (name == 4 && memcmp(w, "href", 4) == 0) || (name == 9 && memcmp(w, "nolinkurl", 9) == 0);
    if (!is_cmd)
        return TT_NONE;
    Py_ssize_t o = skip_space(b, e, n);
    if (o < n && b[o] == '{') {
        *len = o + 1 - i, *label = name == 3 && w[0] == 'd';
        return TT_CMD;
    }
    return TT_NONE;
}

static int tex_builder(const unsigned char *b, Py_ssize_t n, HView *view, int bibtex)
{
    unsigned char *stack = NULL;
    Py_ssize_t depth = 0, cap = 0, verbatim = 0, pos = 0, at = 0;
    /* spec §6, as tex.py: the depth of an open \href's URL argument and where it starts; then its
     * span and where it closed; then the depth of its text's group and where that starts */
    Py_ssize_t href_depth = -1, href_start = -1, text_depth = -1, text_start = -1;
    Py_ssize_t target_start = -1, target_end = -1, target_close = -1;
    int rc = 0;
    for (Py_ssize_t i = 0; rc == 0 && i < n;) {
        i = tex_skip(b, i, n);
        if (i >= n)
            break;
        unsigned char c = b[i];
        unsigned char top = depth > 0 ? stack[depth - 1] : 0xFF;
        if (c == '=') {
            if (!(bibtex && depth == 1 && top == TEX_GROUP)) {
                i++;
                continue;
            }
            /* a BibTeX field's value (name \s* = \s* then { or "), read only in an entry's braces
             * (elsewhere the regex's field token is its text, its brace read on its own) */
            Py_ssize_t q = skip_space(b, i + 1, n);
            Py_ssize_t ne = skip_space_back(b, at, i), s = ne;
            while (s > at && tex_name_char(b[s - 1]))
                s--;
            /* the name's run must start at or after the last token: a name character before it
             * would fail the field's (?<![A-Za-z0-9_-]) at every start the search may try */
            if (!(q < n && (b[q] == '{' || b[q] == '"') && s < ne && ascii_alpha(b[s]) &&
                  (s == 0 || !tex_name_char(b[s - 1])))) {
                i++;
                continue;
            }
            if (hv_linear(view, b + pos, q - pos, pos) < 0 || hv_seg(view, (const unsigned char *)" ", 1, q, 1) < 0 ||
                reserve((void **)&stack, &cap, depth + 1, 1) < 0) {
                rc = -1;
                break;
            }
            stack[depth++] = b[q] == '{' ? TEX_VALUE : TEX_QUOTED;
            pos = at = i = q + 1;
            continue;
        }
        Py_ssize_t len;
        const char *rep = "";
        int label = 0, kind = tex_token(b, n, i, &len, &rep, &label);
        if (kind == TT_NONE) {
            i++;
            continue;
        }
        if ((kind == TT_COMMENT && (bibtex || verbatim > 0)) || (kind == TT_QUOTE && top != TEX_QUOTED)) {
            i = at = i + len; /* a literal "%" or '"': left in the text around it */
            continue;
        }
        if (i > pos && hv_linear(view, b + pos, i - pos, pos) < 0) {
            rc = -1;
            break;
        }
        pos = at = i + len;
        if (kind == TT_COMMENT) { /* LaTeX: to the end of the line, skipped */
            Py_ssize_t eol = find_byte(b, i, n, '\n');
            pos = at = i = eol < 0 ? n : eol;
            continue;
        }
        if (kind == TT_CMD || kind == TT_OPEN) {
            if (reserve((void **)&stack, &cap, depth + 1, 1) < 0) {
                rc = -1;
                break;
            }
        }
        if (kind == TT_ESC) {
            rc = hv_seg(view, (const unsigned char *)rep, (Py_ssize_t)strlen(rep), i, len);
        } else if (kind == TT_CMD) {
            stack[depth++] = label ? TEX_ARG : TEX_VERBATIM;
            verbatim += !label;
            rep = label ? "\ndoi:" : "\n";
            rc = hv_seg(view, (const unsigned char *)rep, (Py_ssize_t)strlen(rep), i, len);
            if (memcmp(b + i + 1, "href", 4) == 0)
                href_depth = depth, href_start = i + len;
        } else if (kind == TT_OPEN) { /* dropped inside an argument or a value (balanced there) */
            int inside = depth > 0 && top != TEX_GROUP;
            stack[depth++] = inside ? TEX_INNER : TEX_GROUP;
            rc = hv_seg(view, (const unsigned char *)"\n", inside ? 0 : 1, i, 1);
            if (target_close >= 0) {
                Py_ssize_t k = target_close;
                while (k < i && (b[k] == ' ' || b[k] == '\t' || b[k] == '\r' || b[k] == '\n'))
                    k++;
                if (k == i) /* \href's text: the group right after its URL */
                    text_depth = depth, text_start = i + 1, target_close = -1;
            }
        } else if (kind == TT_QUOTE) { /* the quote that closes a field's value */
            depth--;
            rc = hv_seg(view, (const unsigned char *)"\n", 1, i, 1);
        } else { /* "}" */
            unsigned char frame = TEX_GROUP;
            Py_ssize_t closed = -1; /* the depth of the frame it closes */
            if (depth > 0 && top != TEX_QUOTED) {
                closed = depth;
                frame = stack[--depth];
                verbatim -= frame == TEX_VERBATIM;
            }
            rc = hv_seg(view, (const unsigned char *)"\n", frame == TEX_INNER ? 0 : 1, i, 1);
            if (rc == 0 && closed >= 0 && closed == href_depth) {
                target_start = href_start, target_end = i, target_close = i + 1, href_depth = -1;
            } else if (rc == 0 && closed >= 0 && closed == text_depth) {
                rc = links_add(&view->links, target_start, target_end, text_start, i);
                text_depth = -1;
            }
        }
        i = pos;
    }
    PyMem_Free(stack);
    if (rc == 0 && pos < n)
        rc = hv_linear(view, b + pos, n - pos, pos);
    return rc;
}

static int latex_builder(const unsigned char *b, Py_ssize_t n, HView v[3], PyObject *unescape)
{
    (void)unescape;
    return tex_builder(b, n, &v[0], 0);
}

static int bibtex_builder(const unsigned char *b, Py_ssize_t n, HView v[3], PyObject *unescape)
{
    (void)unescape;
    return tex_builder(b, n, &v[0], 1);
}

VIEW_ENTRIES(latex, latex_builder)
VIEW_ENTRIES(bibtex, bibtex_builder)
