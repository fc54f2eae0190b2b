/* ---- Links (spec §6: a link is one occurrence): match/links.py's one_per_link in C ----------------
 *
 * A view builder records each link it reads (links_add: the raw spans of its target — an href, a
 * wikitext URL, \href's first argument — and of its text). Of a hit that starts in a link's target
 * and one of the same DOI that ends in its text (a label before the text belongs to it), paired
 * in order, the one that starts later is dropped. tests/test_chtml.py and tests/test_cscan.py
 * hold the result to find_spans, which runs the Python one.
 */

/* A hit of a document read in views, mapped back to its raw bytes. */
typedef struct {
    Py_ssize_t rs, re;
    int form;
    Py_ssize_t name, nn; /* the DOI's name: characters in the views' found.names */
    Py_ssize_t order;    /* view, then place in it: ties keep it, as Python's stable sort */
} HSpan;

typedef struct {
    Py_ssize_t target_start, target_end, text_start, text_end, id;
} Link;

typedef struct {
    Link *link;
    Py_ssize_t n, cap;
} Links;

static int links_add(Links *l, Py_ssize_t ts, Py_ssize_t te, Py_ssize_t xs, Py_ssize_t xe)
{
    if (reserve((void **)&l->link, &l->cap, l->n + 1, sizeof(Link)) < 0)
        return -1;
    l->link[l->n] = (Link){ts, te, xs, xe, l->n};
    l->n++;
    return 0;
}

static void links_free(Links *l)
{
    PyMem_Free(l->link);
    l->link = NULL;
    l->n = l->cap = 0;
}

static int by_target(const void *x, const void *y)
{
    const Link *a = x, *b = y;
    if (a->target_start != b->target_start)
        return a->target_start < b->target_start ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

static int by_text(const void *x, const void *y)
{
    const Link *a = x, *b = y;
    if (a->text_start != b->text_start)
        return a->text_start < b->text_start ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* The last link of `sorted` (by target_start, or by text_start with `text`) starting at or before
 * x, or -1. */
static Py_ssize_t last_at_or_before(const Link *sorted, Py_ssize_t n, Py_ssize_t x, int text)
{
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if ((text ? sorted[mid].text_start : sorted[mid].target_start) <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

/* A hit's role in a link: its link's id, and whether it is in the target (0) or the text (1). */
typedef struct {
    Py_ssize_t link, hit;
    int in_text;
} Role;

static int by_role(const void *x, const void *y)
{
    const Role *a = x, *b = y;
    if (a->link != b->link)
        return a->link < b->link ? -1 : 1;
    if (a->in_text != b->in_text)
        return a->in_text - b->in_text;
    return a->hit < b->hit ? -1 : a->hit > b->hit;
}

static int same_doi(const cp_t *names, const HSpan *a, const HSpan *b)
{
    char ka[KEY_BYTES], kb[KEY_BYTES];
    Py_ssize_t na = name_key(names + a->name, a->nn, ka), nb = name_key(names + b->name, b->nn, kb);
    return na == nb && memcmp(ka, kb, (size_t)na) == 0;
}

/* one_per_link on hs[0:*nh) (sorted by raw start, names in `names`) and the links read: the hits
 * dropped are taken out of hs, *nh made the count left. Returns 0, or -1 with MemoryError set. */
static int one_per_link(HSpan *hs, Py_ssize_t *nh, const cp_t *names, const Links *links)
{
    Py_ssize_t n = *nh, nl = links->n, nr = 0;
    if (nl == 0 || n < 2)
        return 0;
    Link *targets = PyMem_Malloc((size_t)nl * sizeof(Link)), *texts = PyMem_Malloc((size_t)nl * sizeof(Link));
    Role *roles = PyMem_Malloc((size_t)n * sizeof(Role));
    char *gone = PyMem_Calloc((size_t)n, 2); /* per hit: dropped; then: paired already */
    if (targets == NULL || texts == NULL || roles == NULL || gone == NULL) {
        PyMem_Free(targets), PyMem_Free(texts), PyMem_Free(roles), PyMem_Free(gone);
        PyErr_NoMemory();
        return -1;
    }
    char *paired = gone + n;
    memcpy(targets, links->link, (size_t)nl * sizeof(Link));
    memcpy(texts, links->link, (size_t)nl * sizeof(Link));
    qsort(targets, (size_t)nl, sizeof(Link), by_target);
    qsort(texts, (size_t)nl, sizeof(Link), by_text);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t t = last_at_or_before(targets, nl, hs[i].rs, 0);
        if (t >= 0 && hs[i].rs < targets[t].target_end) {
            roles[nr++] = (Role){targets[t].id, i, 0};
            continue;
        }
        Py_ssize_t x = last_at_or_before(texts, nl, hs[i].re - 1, 1); /* its text starts before the end */
        if (x >= 0 && hs[i].re <= texts[x].text_end)
            roles[nr++] = (Role){texts[x].id, i, 1};
    }
    qsort(roles, (size_t)nr, sizeof(Role), by_role);
    int dropped = 0;
    for (Py_ssize_t g = 0; g < nr;) {
        Py_ssize_t e = g, x0;
        while (e < nr && roles[e].link == roles[g].link)
            e++;
        for (x0 = g; x0 < e && !roles[x0].in_text; x0++)
            ;
        /* each hit in the target, in order, with the first hit of its DOI in the text not yet paired */
        for (Py_ssize_t t = g; t < x0; t++) {
            Py_ssize_t a = roles[t].hit;
            for (Py_ssize_t x = x0; x < e; x++) {
                Py_ssize_t b = roles[x].hit;
                if (paired[b] || !same_doi(names, &hs[a], &hs[b]))
                    continue;
                paired[b] = 1;
                gone[(hs[a].rs < hs[b].rs || (hs[a].rs == hs[b].rs && a < b)) ? b : a] = 1;
                dropped = 1;
                break;
            }
        }
        g = e;
    }
    if (dropped) {
        Py_ssize_t k = 0;
        for (Py_ssize_t i = 0; i < n; i++)
            if (!gone[i])
                hs[k++] = hs[i];
        *nh = k;
    }
    PyMem_Free(targets), PyMem_Free(texts), PyMem_Free(roles), PyMem_Free(gone);
    return 0;
}
