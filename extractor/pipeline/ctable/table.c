/* The mention table: one document's hits counted by canonical DOI (dedupe.mentions_of), rows
 * handed out grouped by bucket as Python lists or Arrow buffers. A batch of records shares one
 * table: its rows are keyed by (document, DOI), the document set before each one's hits
 * (set_doc). Part of _ctable.c. */

/* FNV-1a (64 bit): the rows' hash and the buckets' (bucket_of), the same in every process. */
static uint64_t fnv1a(const char *u, Py_ssize_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        h ^= (unsigned char)u[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* The hash a probe of a table reads, never written out: eight bytes a step where FNV-1a takes one
 * (a hit's DOI found again costs no FNV-1a; a new row's is computed once, for its bucket). */
static inline uint64_t probe_hash(const char *u, Py_ssize_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)n;
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, u + i, 8);
        h = (h ^ w) * 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 31;
    }
    if (i < n) {
        uint64_t w = 0;
        memcpy(&w, u + i, (size_t)(n - i));
        h = (h ^ w) * 0x94D049BB133111EBULL;
    }
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93ULL;
    return h ^ (h >> 32);
}

/* The hash that places a row: its DOI's probe hash, mixed with its document's number (0 for a
 * table of one document, whose places are the DOI's hash alone). */
static inline uint64_t slot_hash(uint64_t h, int64_t doc) { return h ^ ((uint64_t)doc * 0x9E3779B97F4A7C15ULL); }

/* Row r's slot hash, from its key in the arena. */
#define ROW_SLOT_HASH(m, r) slot_hash(probe_hash((m)->arena + (m)->rows[r].koff, (m)->rows[r].klen), (m)->rows[r].doc)

/* A place of the hash table: a row, or -1, with the high half of its key's hash, so that a probe
 * passing other keys reads no row (a document of distinct DOIs misses the cache on each). */
typedef struct {
    int32_t row;
    uint32_t tag;
} Slot;

/* What a probe reads of a row and a hit writes, side by side: a hit costs the cache a line or two,
 * where an array a field missed once for each (a document's table outgrows the cache). */
typedef struct {
    int64_t count, offset;
    int64_t doc;           /* its document (set_doc); 0 in a table of one document */
    Py_ssize_t koff;       /* its key's bytes in the arena */
    int32_t klen;
    int32_t mask;          /* its forms, a bit each */
} Row;

/* The rows of one document's distinct DOIs, found by an open-addressing table on the UTF-8
 * bytes of the canonical DOI: a DOI seen before costs no Python object at all. */
typedef struct {
    PyObject_HEAD
    Row *rows;
    int64_t *lines;        /* 1-based line of each row's first offset, or -1 */
    int64_t doc;           /* the document whose hits are counted now */
    uint64_t *hashes;      /* FNV-1a of the key bytes, by row: the bucket hash */
    Py_ssize_t *roff;      /* the first raw text's UTF-8 bytes in the raw arena, by row ... */
    Py_ssize_t *rlen;      /* ... or -1 where it is the key's own bytes (a bare DOI in lower case) */
    Py_ssize_t n, cap;
    char *arena, *rarena;
    Py_ssize_t arena_len, arena_cap, rarena_len, rarena_cap;
    Slot *slots;
    Py_ssize_t nslots;     /* a power of two */
} Mentions;

/* Empty the table, keeping its storage: the hash slots of its rows are emptied one by one when
 * they are few (a table of thousands of slots made for a previous document), else all at once. */
static void mentions_clear(Mentions *m)
{
    if (m->slots != NULL && 8 * m->n < m->nslots) {
        for (Py_ssize_t r = 0; r < m->n; r++) {
            Py_ssize_t i = (Py_ssize_t)(ROW_SLOT_HASH(m, r) & (uint64_t)(m->nslots - 1));
            while (m->slots[i].row != r)
                i = (i + 1) & (m->nslots - 1);
            m->slots[i].row = -1;
        }
    } else if (m->slots != NULL) {
        memset(m->slots, 0xFF, sizeof(Slot) * (size_t)m->nslots);
    }
    m->n = 0;
    m->doc = 0;
    m->arena_len = 0;
    m->rarena_len = 0;
}


static void store_move(Mentions *to, Mentions *from)
{
    to->rows = from->rows, to->lines = from->lines;
    to->hashes = from->hashes, to->roff = from->roff, to->rlen = from->rlen;
    to->cap = from->cap, to->arena = from->arena, to->arena_cap = from->arena_cap, to->rarena = from->rarena;
    to->rarena_cap = from->rarena_cap, to->slots = from->slots, to->nslots = from->nslots;
    from->rows = NULL, from->lines = NULL, from->hashes = NULL;
    from->roff = from->rlen = NULL, from->arena = from->rarena = NULL, from->slots = NULL;
    from->cap = from->arena_cap = from->rarena_cap = from->nslots = 0;
}

/* The store is on the raw allocator: the matcher fills it without the GIL (a batch of texts). */
static void store_free(Mentions *m)
{
    PyMem_RawFree(m->rows);
    PyMem_RawFree(m->lines);
    PyMem_RawFree(m->hashes);
    PyMem_RawFree(m->roff);
    PyMem_RawFree(m->rlen);
    PyMem_RawFree(m->arena);
    PyMem_RawFree(m->rarena);
    PyMem_RawFree(m->slots);
    Mentions none = {0};
    store_move(m, &none);
}

static PyObject *Mentions_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    (void)args;
    (void)kw;
    return type->tp_alloc(type, 0); /* zeroed: no storage until the first row */
}

static void Mentions_dealloc(Mentions *m)
{
    store_free(m);
    Py_TYPE(m)->tp_free((PyObject *)m);
}

static Py_ssize_t Mentions_len(Mentions *m) { return m->n; }

static int rehash(Mentions *m, Py_ssize_t nslots)
{
    Slot *slots = PyMem_RawMalloc(sizeof(Slot) * (size_t)nslots);
    if (slots == NULL) {
        raise_anyhow(PyExc_MemoryError, NULL);
        return -1;
    }
    memset(slots, 0xFF, sizeof(Slot) * (size_t)nslots);
    for (Py_ssize_t r = 0; r < m->n; r++) {
        uint64_t sh = ROW_SLOT_HASH(m, r);
        Py_ssize_t i = (Py_ssize_t)(sh & (uint64_t)(nslots - 1));
        while (slots[i].row >= 0)
            i = (i + 1) & (nslots - 1);
        slots[i].row = (int32_t)r;
        slots[i].tag = (uint32_t)(sh >> 32);
    }
    PyMem_RawFree(m->slots);
    m->slots = slots;
    m->nslots = nslots;
    return 0;
}


/* Keep the raw text of row r's first hit as UTF-8: the bytes B[s:e] (invalid ones as U+FFFD, as
 * raw_of reads them), or `given` when there is no buffer; nothing where it is the key itself. */
static int raw_keep(Mentions *m, Py_ssize_t r, const unsigned char *raw, Py_ssize_t rawlen, PyObject *given,
                    const char *key, Py_ssize_t klen)
{
    const char *u;
    Py_ssize_t un;
    if (given == NULL) {
        if (rawlen == klen && memcmp(raw, key, (size_t)klen) == 0) {
            m->rlen[r] = -1;
            return 0;
        }
        /* an invalid byte (one U+FFFD) takes 3 bytes */
        if (arena_room_in(&m->rarena, m->rarena_len, &m->rarena_cap, 3 * rawlen, 1) < 0)
            return -1;
        char *out = m->rarena + m->rarena_len;
        Py_ssize_t o = 0;
        for (Py_ssize_t i = 0; i < rawlen;) {
            cp_t c;
            i += dec(raw, rawlen, i, &c);
            o += utf8_encode(&c, 1, out + o);
        }
        m->roff[r] = m->rarena_len;
        m->rlen[r] = o;
        m->rarena_len += o;
        return 0;
    }
    if ((u = PyUnicode_AsUTF8AndSize(given, &un)) == NULL)
        return -1;
    if (un == klen && memcmp(u, key, (size_t)klen) == 0) {
        m->rlen[r] = -1;
        return 0;
    }
    if (arena_room_in(&m->rarena, m->rarena_len, &m->rarena_cap, un, 1) < 0)
        return -1;
    memcpy(m->rarena + m->rarena_len, u, (size_t)un);
    m->roff[r] = m->rarena_len;
    m->rlen[r] = un;
    m->rarena_len += un;
    return 0;
}

/* Count one hit of the DOI whose canonical form is the UTF-8 `key`: bytes in C arrays only, the
 * Python objects made when the rows are taken (or none at all, by take_columns). */
static int mentions_add(Mentions *m, const char *key, Py_ssize_t klen, int64_t offset, int64_t line, int form,
                        const unsigned char *raw, Py_ssize_t rawlen, PyObject *given)
{
    if (m->n >= INT32_MAX || klen > INT32_MAX) {
        raise_anyhow(PyExc_OverflowError, "too many DOIs, or too long a DOI, in one mention table");
        return -1;
    }
    if (2 * (m->n + 1) > m->nslots && rehash(m, m->nslots ? 2 * m->nslots : 4096) < 0)
        return -1;
    uint64_t sh = slot_hash(probe_hash(key, klen), m->doc);
    uint32_t tag = (uint32_t)(sh >> 32);
    Py_ssize_t i = (Py_ssize_t)(sh & (uint64_t)(m->nslots - 1));
    for (;;) {
        Py_ssize_t r = m->slots[i].row;
        if (r < 0)
            break;
        if (m->slots[i].tag == tag && m->rows[r].doc == m->doc && m->rows[r].klen == klen &&
            memcmp(m->arena + m->rows[r].koff, key, (size_t)klen) == 0) {
            m->rows[r].count++;
            m->rows[r].mask |= 1 << form;
            if (offset < m->rows[r].offset) {
                if (raw_keep(m, r, raw, rawlen, given, key, klen) < 0)
                    return -1;
                m->rows[r].offset = offset;
                m->lines[r] = line;
            }
            return 0;
        }
        i = (i + 1) & (m->nslots - 1);
    }
    if (m->n == m->cap) {
        Py_ssize_t cap = m->cap ? 2 * m->cap : 1024;
        if (grow_in((void **)&m->rows, cap, sizeof(Row), 1) < 0 || grow_in((void **)&m->lines, cap, sizeof(int64_t), 1) < 0 ||
            grow_in((void **)&m->hashes, cap, sizeof(uint64_t), 1) < 0 ||
            grow_in((void **)&m->roff, cap, sizeof(Py_ssize_t), 1) < 0 || grow_in((void **)&m->rlen, cap, sizeof(Py_ssize_t), 1) < 0)
            return -1;
        m->cap = cap;
    }
    if (arena_room_in(&m->arena, m->arena_len, &m->arena_cap, klen, 1) < 0)
        return -1;
    Py_ssize_t r = m->n;
    if (raw_keep(m, r, raw, rawlen, given, key, klen) < 0)
        return -1;
    m->n++;
    memcpy(m->arena + m->arena_len, key, (size_t)klen);
    m->rows[r].koff = m->arena_len;
    m->rows[r].klen = (int32_t)klen;
    m->arena_len += klen;
    m->hashes[r] = fnv1a(key, klen);
    m->rows[r].count = 1;
    m->rows[r].offset = offset;
    m->lines[r] = line;
    m->rows[r].doc = m->doc;
    m->rows[r].mask = 1 << form;
    m->slots[i].row = (int32_t)r;
    m->slots[i].tag = tag;
    return 0;
}

/* The rows' order when taken: grouped by the hash bucket of their DOI (bucket_of), first-seen
 * within a bucket. Fills row[j] (the row at place j) and at[0..buckets] (bucket b's places are
 * [at[b], at[b + 1])); the caller frees both. */
static int mentions_order(const Mentions *m, Py_ssize_t buckets, Py_ssize_t **row, Py_ssize_t **at)
{
    Py_ssize_t n = m->n;
    Py_ssize_t *of = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(n + 1));
    Py_ssize_t *next = PyMem_Calloc((size_t)buckets + 1, sizeof(Py_ssize_t));
    *row = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(n + 1));
    *at = PyMem_Calloc((size_t)buckets + 1, sizeof(Py_ssize_t));
    if (!of || !next || !*row || !*at) {
        PyMem_Free(of);
        PyMem_Free(next);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        of[i] = (Py_ssize_t)(m->hashes[i] % (uint64_t)buckets);
        (*at)[of[i] + 1]++;
    }
    for (Py_ssize_t b = 0; b < buckets; b++)
        (*at)[b + 1] += (*at)[b];
    memcpy(next, *at, sizeof(Py_ssize_t) * (size_t)(buckets + 1));
    for (Py_ssize_t i = 0; i < n; i++)
        (*row)[next[of[i]]++] = i;
    PyMem_Free(of);
    PyMem_Free(next);
    return 0;
}

static PyObject *bounds_list(const Py_ssize_t *at, Py_ssize_t buckets)
{
    PyObject *bounds = PyList_New(buckets + 1);
    for (Py_ssize_t b = 0; bounds != NULL && b <= buckets; b++) {
        PyObject *v = PyLong_FromSsize_t(at[b]);
        if (v == NULL)
            Py_CLEAR(bounds);
        else
            PyList_SET_ITEM(bounds, b, v);
    }
    return bounds;
}

static int buckets_arg(PyObject *args, Py_ssize_t *buckets)
{
    *buckets = 1;
    if (!PyArg_ParseTuple(args, "|n", buckets))
        return -1;
    if (*buckets < 1) {
        PyErr_SetString(PyExc_ValueError, "buckets must be positive");
        return -1;
    }
    return 0;
}

/* take(buckets=1) -> (dois, counts, first_offsets, first_raws, form_masks, first_lines, bounds): the rows
 * grouped by the hash bucket of their DOI (bucket_of), in first-seen order within a bucket;
 * bucket b's rows are [bounds[b], bounds[b + 1]). The table is emptied. */
static PyObject *Mentions_take(Mentions *m, PyObject *args)
{
    Py_ssize_t buckets, *row = NULL, *at = NULL, n = m->n;
    if (buckets_arg(args, &buckets) < 0)
        return NULL;
    PyObject *dois = PyList_New(n), *raws = PyList_New(n), *counts = PyList_New(n), *offsets = PyList_New(n),
             *masks = PyList_New(n), *lines = PyList_New(n), *bounds = NULL, *out = NULL;
    if (!dois || !raws || !counts || !offsets || !masks || !lines || mentions_order(m, buckets, &row, &at) < 0 ||
        !(bounds = bounds_list(at, buckets)))
        goto done;
    for (Py_ssize_t j = 0; j < n; j++) {
        Py_ssize_t i = row[j];
        PyObject *d = PyUnicode_DecodeUTF8(m->arena + m->rows[i].koff, m->rows[i].klen, "strict");
        PyObject *r = d == NULL || m->rlen[i] < 0 ? Py_XNewRef(d)
                                                  : PyUnicode_DecodeUTF8(m->rarena + m->roff[i], m->rlen[i], "strict");
        PyObject *a = PyLong_FromLongLong(m->rows[i].count), *b = PyLong_FromLongLong(m->rows[i].offset),
                 *c = PyLong_FromLong(m->rows[i].mask);
        PyObject *l = m->lines[i] < 0 ? Py_NewRef(Py_None) : PyLong_FromLongLong(m->lines[i]);
        PyList_SET_ITEM(dois, j, d);
        PyList_SET_ITEM(raws, j, r);
        PyList_SET_ITEM(counts, j, a);
        PyList_SET_ITEM(offsets, j, b);
        PyList_SET_ITEM(masks, j, c);
        PyList_SET_ITEM(lines, j, l);
        if (!d || !r || !a || !b || !c || !l)
            goto done; /* a NULL item of a list is safe to free */
    }
    out = Py_BuildValue("(OOOOOOO)", dois, counts, offsets, raws, masks, lines, bounds);
    if (out != NULL)
        mentions_clear(m);
done:
    PyMem_Free(row);
    PyMem_Free(at);
    Py_XDECREF(dois);
    Py_XDECREF(raws);
    Py_XDECREF(counts);
    Py_XDECREF(offsets);
    Py_XDECREF(masks);
    Py_XDECREF(lines);
    Py_XDECREF(bounds);
    return out;
}

/* One Arrow string column of the rows in `row` order as (offsets, data) bytes: int32 offsets
 * (Arrow's string layout), the keys' bytes or (raw) the raw texts'. */
static int string_column(const Mentions *m, const Py_ssize_t *row, int raw, PyObject **offs, PyObject **data)
{
    Py_ssize_t n = m->n, total = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        Py_ssize_t i = row[j];
        total += raw && m->rlen[i] >= 0 ? m->rlen[i] : m->rows[i].klen;
    }
    if (total > INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "more than 2 GiB of text in one column");
        return -1;
    }
    *offs = PyBytes_FromStringAndSize(NULL, 4 * (n + 1));
    *data = PyBytes_FromStringAndSize(NULL, total);
    if (*offs == NULL || *data == NULL)
        return -1;
    int32_t *o = (int32_t *)PyBytes_AS_STRING(*offs);
    char *d = PyBytes_AS_STRING(*data);
    Py_ssize_t at = 0;
    o[0] = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        Py_ssize_t i = row[j];
        const char *src = raw && m->rlen[i] >= 0 ? m->rarena + m->roff[i] : m->arena + m->rows[i].koff;
        Py_ssize_t len = raw && m->rlen[i] >= 0 ? m->rlen[i] : m->rows[i].klen;
        memcpy(d + at, src, (size_t)len);
        at += len;
        o[j + 1] = (int32_t)at;
    }
    return 0;
}

/* take_columns(buckets=1, docs=False) -> (doi_offsets, doi_data, counts, first_offsets, raw_offsets,
 * raw_data, form_masks, first_lines, lines_valid, bounds[, docs]): take's rows as the buffers of
 * Arrow arrays — strings as int32 offsets and UTF-8 data, int64 counts, offsets and lines, int32
 * masks, a validity bitmap of the lines (None when none is missing), with `docs` each row's
 * document (int64) — with no Python object per row. */
static PyObject *Mentions_take_columns(Mentions *m, PyObject *args)
{
    Py_ssize_t buckets = 1, *row = NULL, *at = NULL, n = m->n;
    int with_docs = 0;
    PyObject *doff = NULL, *ddata = NULL, *roffs = NULL, *rdata = NULL, *counts = NULL, *offsets = NULL, *masks = NULL,
             *lines = NULL, *valid = NULL, *bounds = NULL, *docs = NULL, *out = NULL;
    if (!PyArg_ParseTuple(args, "|np", &buckets, &with_docs))
        return NULL;
    if (buckets < 1) {
        PyErr_SetString(PyExc_ValueError, "buckets must be positive");
        return NULL;
    }
    if (mentions_order(m, buckets, &row, &at) < 0 || !(bounds = bounds_list(at, buckets)) ||
        (with_docs && !(docs = PyBytes_FromStringAndSize(NULL, 8 * n))) ||
        string_column(m, row, 0, &doff, &ddata) < 0 || string_column(m, row, 1, &roffs, &rdata) < 0 ||
        !(counts = PyBytes_FromStringAndSize(NULL, 8 * n)) || !(offsets = PyBytes_FromStringAndSize(NULL, 8 * n)) ||
        !(masks = PyBytes_FromStringAndSize(NULL, 4 * n)) || !(lines = PyBytes_FromStringAndSize(NULL, 8 * n)))
        goto done;
    int64_t *c = (int64_t *)PyBytes_AS_STRING(counts), *o = (int64_t *)PyBytes_AS_STRING(offsets),
            *l = (int64_t *)PyBytes_AS_STRING(lines);
    int32_t *k = (int32_t *)PyBytes_AS_STRING(masks);
    Py_ssize_t missing = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        Py_ssize_t i = row[j];
        c[j] = m->rows[i].count;
        o[j] = m->rows[i].offset;
        k[j] = m->rows[i].mask;
        l[j] = m->lines[i] < 0 ? 0 : m->lines[i];
        missing += m->lines[i] < 0;
    }
    if (docs != NULL)
        for (Py_ssize_t j = 0; j < n; j++)
            ((int64_t *)PyBytes_AS_STRING(docs))[j] = m->rows[row[j]].doc;
    if (missing) {
        if (!(valid = PyBytes_FromStringAndSize(NULL, (n + 7) / 8)))
            goto done;
        unsigned char *v = (unsigned char *)PyBytes_AS_STRING(valid);
        memset(v, 0, (size_t)(n + 7) / 8);
        for (Py_ssize_t j = 0; j < n; j++)
            if (m->lines[row[j]] >= 0)
                v[j >> 3] |= (unsigned char)(1 << (j & 7));
    } else {
        valid = Py_NewRef(Py_None);
    }
    out = docs == NULL ? Py_BuildValue("(OOOOOOOOOO)", doff, ddata, counts, offsets, roffs, rdata, masks, lines, valid, bounds)
                       : Py_BuildValue("(OOOOOOOOOOO)", doff, ddata, counts, offsets, roffs, rdata, masks, lines, valid, bounds,
                                       docs);
    if (out != NULL)
        mentions_clear(m);
done:
    PyMem_Free(row);
    PyMem_Free(at);
    Py_XDECREF(doff);
    Py_XDECREF(ddata);
    Py_XDECREF(roffs);
    Py_XDECREF(rdata);
    Py_XDECREF(counts);
    Py_XDECREF(offsets);
    Py_XDECREF(masks);
    Py_XDECREF(lines);
    Py_XDECREF(valid);
    Py_XDECREF(bounds);
    Py_XDECREF(docs);
    return out;
}

/* The matcher's sink (match/cscan/sink.h): a hit counted with no Python object made. */
static int sink_add(PyObject *table, const char *key, Py_ssize_t klen, int64_t offset, int64_t line, int form,
                    const unsigned char *raw, Py_ssize_t rawlen)
{
    return mentions_add((Mentions *)table, key, klen, offset, line, form, raw, rawlen, NULL);
}

static int sink_set_doc(PyObject *table, int64_t doc)
{
    ((Mentions *)table)->doc = doc;
    return 0;
}

static Py_ssize_t sink_rows(PyObject *table) { return ((Mentions *)table)->n; }

static const DoiSinkApi SINK_API = {sink_add, sink_set_doc, sink_rows};

/* set_doc(doc): the document (of a batch of records, from 0) whose hits are counted from now on. */
static PyObject *Mentions_set_doc(Mentions *m, PyObject *arg)
{
    long long doc = PyLong_AsLongLong(arg);
    if (doc == -1 && PyErr_Occurred())
        return NULL;
    m->doc = (int64_t)doc;
    Py_RETURN_NONE;
}

/* add(doi, offset, form, raw, line=-1): count one hit found by the Python matcher (HTML, PDF text). */
static PyObject *Mentions_add(Mentions *m, PyObject *args)
{
    PyObject *doi, *raw;
    long long offset, line = -1;
    int form;
    if (!PyArg_ParseTuple(args, "ULiU|L", &doi, &offset, &form, &raw, &line))
        return NULL;
    if (form < 0 || form >= MAX_FORMS) {
        PyErr_SetString(PyExc_ValueError, "form index out of range");
        return NULL;
    }
    Py_ssize_t kn;
    const char *kb = PyUnicode_AsUTF8AndSize(doi, &kn);
    if (kb == NULL || mentions_add(m, kb, kn, (int64_t)offset, line < 0 ? -1 : (int64_t)line, form, NULL, 0, raw) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef Mentions_methods[] = {
    {"add", (PyCFunction)Mentions_add, METH_VARARGS,
     "add(doi, offset, form, raw, line=-1): count one hit of `doi` (canonical) at `offset` (on 1-based `line`, -1 for none), form index `form`."},
    {"set_doc", (PyCFunction)Mentions_set_doc, METH_O,
     "set_doc(doc): the document of a batch (from 0) whose hits are counted from now on; emptying the table sets 0."},
    {"take", (PyCFunction)Mentions_take, METH_VARARGS,
     "take(buckets=1) -> (dois, counts, first_offsets, first_raws, form_masks, first_lines, bounds), grouped by bucket; empties the table."},
    {"take_columns", (PyCFunction)Mentions_take_columns, METH_VARARGS,
     "take_columns(buckets=1, docs=False) -> take's rows as Arrow buffers (doi_offsets, doi_data, counts, first_offsets, raw_offsets, raw_data, form_masks, first_lines, lines_valid, bounds[, docs]); empties the table."},
    {NULL, NULL, 0, NULL}};
static PySequenceMethods Mentions_seq = {.sq_length = (lenfunc)Mentions_len};
static PyTypeObject MentionsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "extractor.pipeline._ctable.Mentions",
    .tp_basicsize = sizeof(Mentions),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The distinct DOIs of one document: count, first offset and raw text, display forms.",
    .tp_new = Mentions_new,
    .tp_dealloc = (destructor)Mentions_dealloc,
    .tp_methods = Mentions_methods,
    .tp_as_sequence = &Mentions_seq,
};
