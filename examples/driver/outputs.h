/* outputs.h - the example driver's output files (outputs.c). */
#ifndef OUTPUTS_H
#define OUTPUTS_H

#include "driver.h"

#include <stdio.h>

/* How many of the output paths in o are "-" (standard output): at most one may be. */
int outputs_dashes(const options *o);

/* When an output is "-": keep standard output for it in *data, and send everything else printed to
   stderr, so that `generate --trace - | ttft_tpot_report -` reads a trace and nothing else. *data is
   NULL when no output is "-". 0, or 1 after a message. */
int outputs_keep_stdout(const options *o, FILE **data);

/* Every output file o names (--profile-json, --profile-html, --trace, --prometheus), written from m;
   "-" to data. 0, or 1 after a message. */
int outputs_write(const options *o, const ttft_tpot_model *m, FILE *data);

#endif
