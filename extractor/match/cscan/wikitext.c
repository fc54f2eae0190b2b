/* ---- Wikitext (spec §7): match/syntaxes/wikitext.py's view on UTF-8 bytes ---------------------
 *
 * One view of the page: its text with character references decoded (as html.py's add_text), a
 * template's or link's separators — "{{", "}}", "[[", "]]", and "|" inside them — and runs of
 * two or more apostrophes as line breaks, comments skipped, and the "|" after a {{doi}}
 * template's name a ":" (a label). Searched and mapped back by views_find, as HTML's views are.
 * tests/test_cscan.py holds it to find_spans(…, syntax="wikitext").
 */

/* wikitext._DOI_TEMPLATE on b[a:z): \s*(?:doi|DOI|Doi)\s*\Z, \s as Python's str reads it. */
static int doi_template_name(const unsigned char *b, Py_ssize_t a, Py_ssize_t z)
{
    a = skip_space(b, a, z);
    if (z - a < 3 || !(memcmp(b + a, "doi", 3) == 0 || memcmp(b + a, "DOI", 3) == 0 || memcmp(b + a, "Doi", 3) == 0))
        return 0;
    return skip_space(b, a + 3, z) == z;
}

/* The length of the token of wikitext._TOKEN at b[i], or 0 (a comment runs to its "-->" or
 * to the end; `comment` tells it apart). */
static Py_ssize_t wiki_token(const unsigned char *b, Py_ssize_t n, Py_ssize_t i, int *comment)
{
    *comment = 0;
    unsigned char c = b[i], d = i + 1 < n ? b[i + 1] : 0;
    if (c == '<' && i + 3 < n && memcmp(b + i, "<!--", 4) == 0) {
        *comment = 1;
        Py_ssize_t e = find_str(b, i + 4, n, "-->");
        return (e < 0 ? n : e + 3) - i;
    }
    if ((c == '{' && d == '{') || (c == '}' && d == '}') || (c == '[' && d == '[') || (c == ']' && d == ']'))
        return 2;
    if (c == '|')
        return 1;
    if (c == '\'' && d == '\'') {
        Py_ssize_t j = i;
        while (j < n && b[j] == '\'')
            j++;
        return j - i;
    }
    return 0;
}

/* wikitext._EXTERNAL_LINK at b[i] == '[': (?<!\[)\[((?:https?:|ftp:)?//[^ \t\n\r\f\v\[\]<>"]+)[ \t]+([^\]\n]*)\]
 * (the scheme in any case): the URL's and the text's spans, and 1; 0 when none starts there. */
static int external_link(const unsigned char *b, Py_ssize_t n, Py_ssize_t i, Py_ssize_t span[4])
{
    if (i > 0 && b[i - 1] == '[')
        return 0;
    Py_ssize_t k = i + 1;
    static const char *const schemes[] = {"https:", "http:", "ftp:", ""};
    for (size_t s = 0; s < sizeof schemes / sizeof *schemes; s++) {
        Py_ssize_t len = (Py_ssize_t)strlen(schemes[s]), t = 0;
        while (t < len && k + t < n && (b[k + t] | (ascii_alpha(b[k + t]) ? 0x20 : 0)) == (unsigned char)schemes[s][t])
            t++;
        if (t == len && k + len + 1 < n && b[k + len] == '/' && b[k + len + 1] == '/') {
            k += len + 2;
            break;
        }
        if (s + 1 == sizeof schemes / sizeof *schemes)
            return 0;
    }
    Py_ssize_t u = k;
    while (u < n && !(b[u] == ' ' || (b[u] >= 9 && b[u] <= 13) || b[u] == '[' || b[u] == ']' || b[u] == '<' ||
                      b[u] == '>' || b[u] == '"'))
        u++;
    if (u == k)
        return 0;
    Py_ssize_t x = u;
    while (x < n && (b[x] == ' ' || b[x] == '\t'))
        x++;
    if (x == u)
        return 0;
    Py_ssize_t e = x;
    while (e < n && b[e] != ']' && b[e] != '\n')
        e++;
    if (e >= n || b[e] != ']')
        return 0;
    span[0] = i + 1, span[1] = u, span[2] = x, span[3] = e;
    return 1;
}

/* The page's external links (spec §6), as wikitext.views finds them. */
static int external_links(const unsigned char *b, Py_ssize_t n, Links *links)
{
    for (Py_ssize_t i = find_byte(b, 0, n, '['); i >= 0; i = find_byte(b, i + 1, n, '[')) {
        Py_ssize_t span[4];
        if (!external_link(b, n, i, span))
            continue;
        if (links_add(links, span[0], span[1], span[2], span[3]) < 0)
            return -1;
        i = span[3]; /* on from its "]" */
    }
    return 0;
}

static int wikitext_builder(const unsigned char *b, Py_ssize_t n, HView v[3], PyObject *unescape)
{
    HView *view = &v[0];
    char *stack = NULL; /* '{' or '[' for each template or link open at this point */
    Py_ssize_t depth = 0, cap = 0, name_start = -1, pos = 0;
    int rc = 0;
    for (Py_ssize_t i = 0; rc == 0 && i < n;) {
        unsigned char c = b[i];
        if (c != '<' && c != '{' && c != '}' && c != '[' && c != ']' && c != '|' && c != '\'') {
            i++;
            continue;
        }
        int comment;
        Py_ssize_t len = wiki_token(b, n, i, &comment);
        if (len == 0) {
            i++;
            continue;
        }
        if (i > pos && hv_text(view, b, pos, i, unescape) < 0) {
            rc = -1;
            break;
        }
        pos = i + len;
        if (comment) {
            i = pos;
            continue; /* skipped: what stands on both sides of it meets */
        }
        if (c == '|' && depth == 0) {
            rc = hv_seg(view, b + i, 1, i, 0); /* prose or a table: a character like any other */
            i = pos;
            continue;
        }
        if (c == '|' && name_start >= 0) {
            int first = stack[depth - 1] == '{' && doi_template_name(b, name_start, i);
            name_start = -1;
            if (first) { /* {{doi|10.…}}: the label of its first parameter */
                rc = hv_seg(view, (const unsigned char *)":", 1, i, 1);
                i = pos;
                continue;
            }
        } else if ((c == '{' || c == '[') && len == 2) {
            if (reserve((void **)&stack, &cap, depth + 1, 1) < 0) {
                rc = -1;
                break;
            }
            stack[depth++] = (char)c;
            name_start = pos;
        } else if ((c == '}' || c == ']') && len == 2) {
            if (depth > 0 && stack[depth - 1] == (c == '}' ? '{' : '['))
                depth--;
            name_start = -1;
        }
        rc = hv_seg(view, (const unsigned char *)"\n", 1, i, len);
        i = pos;
    }
    PyMem_Free(stack);
    if (rc == 0 && pos < n)
        rc = hv_text(view, b, pos, n, unescape);
    if (rc == 0)
        rc = external_links(b, n, &view->links);
    return rc;
}

VIEW_ENTRIES(wikitext, wikitext_builder)
