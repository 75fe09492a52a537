/* outputs.c - the example driver's output files: the JSON report, the HTML page, the trace and the
   Prometheus exposition, each written from the one report model; any one of them may be "-", the
   program's standard output. */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* mkstemp, fchmod, fdopen, lstat */
#endif
#include "outputs.h"

#include "ttft_tpot_tools.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int outputs_dashes(const options *o)
{
    return (o->profile_json && strcmp(o->profile_json, "-") == 0) + (o->trace && strcmp(o->trace, "-") == 0) +
           (o->prometheus && strcmp(o->prometheus, "-") == 0) +
           (o->profile_html && strcmp(o->profile_html, "-") == 0);
}

int outputs_keep_stdout(const options *o, FILE **data)
{
    int fd;
    *data = NULL;
    if (outputs_dashes(o) == 0)
        return 0;
    fflush(stdout);
    if ((fd = dup(1)) < 0 || dup2(2, 1) < 0 || !(*data = fdopen(fd, "w"))) {
        fprintf(stderr, "generate: cannot keep standard output for the data: %s\n", strerror(errno));
        return 1;
    }
    return 0;
}

/* The HTML report of the run, as write_file writes a report. */
static int html_one(const ttft_tpot_model *m, FILE *out)
{
    const char *name = "generate";
    return ttft_tpot_html_report(out, &m, &name, 1, NULL) == 0 ? TTFT_TPOT_OK : TTFT_TPOT_EIO;
}

/* The JSON report, as write_file writes a report. */
static int json_of(const ttft_tpot_model *m, FILE *out)
{
    return ttft_tpot_model_write(m, out, TTFT_TPOT_FORMAT_JSON);
}

/* The run's trace, as write_file writes a report. */
static int trace_of(const ttft_tpot_model *m, FILE *out)
{
    return ttft_tpot_trace_write(m->collector, out);
}

/* Write fn's output of the model to path; 0 or 1 after a message. */
static int write_file(const char *path, int (*fn)(const ttft_tpot_model *, FILE *), const ttft_tpot_model *m,
                      FILE *data_out)
{
    FILE *f = strcmp(path, "-") == 0 ? data_out : fopen(path, "w");
    int rc;
    if (!f) {
        fprintf(stderr, "generate: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    rc = fn(m, f);
    if ((f == data_out ? fflush(f) : fclose(f)) != 0 || rc != TTFT_TPOT_OK) {
        fprintf(stderr, "generate: writing %s failed: %s\n", path, ttft_tpot_strerror(rc ? rc : TTFT_TPOT_EIO));
        return 1;
    }
    return 0;
}

/* The Prometheus exposition to path, atomically, as node_exporter's textfile collector wants it: a
   temporary file created exclusively (mkstemp) in path's directory, renamed over path. A path that
   exists and is not a regular file (a FIFO, a device, a link) is refused, never replaced. */
static int write_prometheus(const char *path, const ttft_tpot_model *m, const char *prefix, const char *labels,
                            FILE *data_out)
{
    const char *base = strrchr(path, '/');
    size_t dir = base ? (size_t)(base - path) + 1 : 0;
    char tmp[4096];
    struct stat st;
    FILE *f = NULL;
    int fd, rc = TTFT_TPOT_EIO;
    if (strcmp(path, "-") == 0) { /* standard output: nothing to replace atomically */
        rc = ttft_tpot_model_prometheus(m, data_out, prefix, labels);
        if (fflush(data_out) != 0 || rc != TTFT_TPOT_OK) {
            fprintf(stderr, "generate: writing - failed: %s\n", ttft_tpot_strerror(rc ? rc : TTFT_TPOT_EIO));
            return 1;
        }
        return 0;
    }
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        fprintf(stderr, "generate: --prometheus: %s is not a regular file: not replaced\n", path);
        return 1;
    }
    if (snprintf(tmp, sizeof tmp, "%.*s.%s.XXXXXX", (int)dir, path, path + dir) >= (int)sizeof tmp ||
        (fd = mkstemp(tmp)) < 0) {
        fprintf(stderr, "generate: cannot create a temporary file beside %s: %s\n", path, strerror(errno));
        return 1;
    }
    if (fchmod(fd, 0644) == 0 && (f = fdopen(fd, "w")) != NULL) /* the collector reads it as another user */
        rc = ttft_tpot_model_prometheus(m, f, prefix, labels);
    if ((f ? fclose(f) : close(fd)) != 0 || rc != TTFT_TPOT_OK || rename(tmp, path) != 0) {
        fprintf(stderr, "generate: writing %s failed: %s\n", path, ttft_tpot_strerror(rc ? rc : TTFT_TPOT_EIO));
        remove(tmp);
        return 1;
    }
    return 0;
}


int outputs_write(const options *o, const ttft_tpot_model *m, FILE *data)
{
    const ttft_tpot_serve_model *served = ttft_tpot_serve_figures(m);
    int status = 0;
    if (o->profile_json)
        status = write_file(o->profile_json, json_of, m, data);
    if (status == 0 && o->profile_html)
        status = write_file(o->profile_html, html_one, m, data);
    if (status == 0 && o->trace)
        status = write_file(o->trace, trace_of, m, data);
    if (status == 0 && o->prometheus && !(o->prometheus_every > 0)) /* else serving published it live */
        status = write_prometheus(o->prometheus, m, o->prom_prefix, o->prom_labels, data);
    if (status == 0 && o->prometheus && (!served || served->requests.n == 0)) /* valid, and empty: a
                                                                                dashboard would read zeros */
        fputs("generate: warning: --prometheus: no measured request (serve some with --requests): every histogram is "
              "empty\n", stderr);
    return status;
}
