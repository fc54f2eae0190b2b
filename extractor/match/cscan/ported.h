/* The Python rules that the C code ports, as their source text, reported by tables():
 * match/native.py compares them with the rules themselves at import, so that a rule edited on
 * one side fails at once until it is ported to the other. */

/* match/forms.py FORMS, in the order of the F_ enum */
static const char *const FORM_NAMES[] = {
    "bare", "doi-label", "resolver-url", "dx-resolver-url",
    "handle-url", "urn", "eidr-urn", "info-uri",
    "other-url", "percent-encoded", "short-doi", "pdf-link",
    /* spec §8's derived forms: found by match/derive.py after either matcher, never by C */
    "derived-arxiv", "derived-zenodo", "derived-ssrn", "derived-elife", "derived-peerj", "derived-nature",
    NULL};

/* tails.TAIL_RULES, ported by tail_match and tail_context: pattern, flags, context ("" none) */
static const char *const TAIL_SOURCES[] = {
    ";jsessionid=.*\\Z",
    "50",
    "",
    "/(?:abstract|abs|full|pdf|epdf|pdfdirect|fulltext|html|meta|references|suppinfo|citedby|figures|tables|download|issuetoc|pdfplus|lookinside)(?:\\.html?)?/?\\Z",
    "34",
    "",
    "\\.pdf\\Z",
    "34",
    "",
    "(?<=\\d)v\\d+(?:\\.(?:full|abstract|full\\-text|article\\-info|article\\-metrics|supplementary\\-material|full\\.pdf|full\\.pdf\\+html|figures\\-only))*\\Z",
    "34",
    "(?:bio|med)rxiv\\.org/|\\x0010\\.1101/",
    "/(?:transform(?:/.*)?|agency)\\Z",
    "50",
    "",
    "/\\d+(?:/[^/]*)?\\Z",
    "32",
    "/article/doi/\\x00",
    "/(?:asset|assets|mediaobjects|suppl_file|email|figures|tables)(?:/.*)?\\Z",
    "50",
    "",
    "/[^/]*\\.(?:png|jpg|jpeg|gif|svg|webp|tif|tiff|bmp|mp4|m4v|mov|webm|mp3)\\Z",
    "34",
    "",
    "\\.(?:png|jpg|jpeg|gif|svg|webp|tif|tiff|bmp|mp4|m4v|mov|webm|mp3)\\Z",
    "34",
    "",
    NULL};

/* pdf.DEHYPHENATION_RULES, ported by may_rehyphenate: pattern, flags, replacement */
static const char *const DEHYPHENATION_SOURCES[] = {
    "\\A(10\\.\\d+/(?:\\(SICI\\))?S?)(\\d{4})(\\d{3}[\\dX])(?=\\()",
    "34",
    "\\1\\2-\\3",
    "\\A(10\\.\\d+/j\\.)(\\d{4})(\\d{3}[\\dX])(?=\\.)",
    "34",
    "\\1\\2-\\3",
    "(>\\d\\.\\d\\.CO;\\d)([\\dA-Z])\\Z",
    "34",
    "\\1-\\2",
    "\\A(10\\.\\d+/s\\d{5})(\\d{3}-\\d{5}-[\\dA-Z])\\Z",
    "34",
    "\\1-\\2",
    "\\A(10\\.\\d+/s\\d{5}-\\d{3})(\\d{5}-[\\dA-Z])\\Z",
    "34",
    "\\1-\\2",
    "\\A(10\\.\\d+/s\\d{5}-\\d{3}-\\d{5})([\\dA-Z])\\Z",
    "34",
    "\\1-\\2",
    "\\A(10\\.\\d+/)(?=(?:[^-]*-){2})([A-Z0-9]{4})-?([A-Z0-9]{4})-?([A-Z0-9]{4})-?([A-Z0-9]{4})\\Z",
    "34",
    "\\1\\2-\\3-\\4-\\5",
    "\\A(10\\.\\d+/\\d{8})-?(\\d{9})-?(\\d{5})\\Z",
    "32",
    "\\1-\\2-\\3",
    "(::AID)(?=[A-Z])",
    "34",
    "\\1-",
    "(\\(\\d{2}\\)\\d{5})([\\dX])\\Z",
    "34",
    "\\1-\\2",
    "\\A(10\\.\\d+/(?!97[89])\\d{4}-\\d{3}[\\dX])(?=\\d)",
    "34",
    "\\1-",
    "\\A(10\\.1055/[a-z])-?(\\d{4})-?(\\d{7})\\Z",
    "34",
    "\\1-\\2-\\3",
    "\\A(10\\.1146/annurev-[a-z]+)(\\d{6}-\\d{6})\\Z",
    "34",
    "\\1-\\2",
    "\\A(10\\.3760/cma\\.j\\.cn\\d{6})-?(\\d{8})-?(\\d{5})\\Z",
    "34",
    "\\1-\\2-\\3",
    NULL};

/* tails.DOI_PATH_MARKER, ported by doi_path_marker: pattern, flags */
static const char *const DOI_PATH_MARKER_SOURCE[] = {
    "(?i)/doi/|(?:\\A|[/.@])(?:link|rd)\\.springer\\.com/(?:article|chapter|book|referenceworkentry|protocol|content/pdf|epdf)/\\Z",
    "34",
    NULL};
