/* seed_logs.h — the K3 article's two reconstructed logs, embedded so a new store starts with the
 * runs the default coefficients were solved from (MODEL.md, "Default K3 coefficients"). */
#ifndef CGPLAN_SEED_LOGS_H
#define CGPLAN_SEED_LOGS_H

#include <stddef.h>

typedef struct {
    const char *file_name; /* the fixture it copies: "k3-dp16-b200-article.log" */
    const char *preset;    /* the deployment preset giving what the log lacks (gpu) */
    const char *label;
    const char *text;
    size_t len;
} store_seed_log;

extern const store_seed_log store_seed_logs[]; /* terminated by {0} */

#endif
