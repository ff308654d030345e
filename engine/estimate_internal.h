/* estimate_internal.h — what the estimate's files share and nothing else sees: the terms-only
 * estimate the budget's probes run, the warning table's rows, and the warning macros that leave a
 * quiet list's texts unformatted. */
#ifndef CGPLAN_ESTIMATE_INTERNAL_H
#define CGPLAN_ESTIMATE_INTERNAL_H

#include "engine.h"

#include <stdio.h>

/* Every term, the layers, totals and heuristic of D into E (estimate.c); QUIET: no texts. The
 * budget is not touched. */
void estimate_terms_run(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e, bool quiet);
/* The same with the kernel nodes per graph given (NODES; NULL: counted): the wall's probes vary
 * max_bs alone, which the count does not depend on. */
void estimate_terms_run_nodes(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e, bool quiet,
                              const engine_graph_nodes *nodes);

/* --ep-size as the release resolves it (auto: tp with DeepEP, else 1; one that does not divide
 * tp: 1). */
uint32_t estimate_ep_under(const engine_knobs_state *k, bool deepep); /* --ep-size as SGLang resolves it */
uint32_t estimate_resolved_ep(const engine_deployment *d);

/* The warning table's row of CODE (-1: none), and a row's code and knobs. */
int estimate_warning_kind(const char *code);
const char *estimate_warning_code(int kind);
uint32_t estimate_warning_knobs(int kind);

/* A quiet list's warning: the code and the numbers, without the variadic call. */
void estimate_warn_quiet(engine_warnings *w, const char *code, double value, double limit);

/* A warning's brief text into BUF, only when the warnings keep texts. */
#define BRIEF(w, buf, ...) ((w) && (w)->quiet ? (void)((buf)[0] = '\0') : (void)snprintf(buf, sizeof buf, __VA_ARGS__))

/* engine_warn_at, whose text arguments are not even evaluated for a quiet list. */
#define WARN_AT(w, code, value, limit, brief, ...)                                                                     \
    ((w) && (w)->quiet ? estimate_warn_quiet((w), (code), (double)(value), (double)(limit))                            \
                       : engine_warn_at((w), (code), (value), (limit), (brief), __VA_ARGS__))

#endif
