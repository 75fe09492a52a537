/* An NVTX injection library of the tests' own, loaded through NVTX_INJECTION64_PATH as a profiler's
   is: it writes one line a range call into the file TTFT_TPOT_NVTX_LOG names ("push DOMAIN NAME",
   "pop DOMAIN"), so tests/nvtx/spans.c can check what the spans sent. Without TTFT_TPOT_NVTX_LOG it
   only counts the calls: the least a tool does, for the cost of a span with a tool attached. */
#include <nvtx3/nvToolsExt.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *inject_log; /* NULL: count only */
static unsigned long long inject_calls;
static char inject_domain[64]; /* the one domain this test creates */

static nvtxDomainHandle_t NVTX_API inject_create(const char *name)
{
    snprintf(inject_domain, sizeof inject_domain, "%s", name);
    return (nvtxDomainHandle_t)(uintptr_t)1;
}

static void NVTX_API inject_destroy(nvtxDomainHandle_t d)
{
    (void)d;
    if (inject_log)
        fprintf(inject_log, "destroy %s\n", inject_domain);
}

static int NVTX_API inject_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    inject_calls++;
    if (inject_log)
        fprintf(inject_log, "push %s %s\n", d == (nvtxDomainHandle_t)(uintptr_t)1 ? inject_domain : "?",
            a && a->messageType == NVTX_MESSAGE_TYPE_ASCII ? a->message.ascii : "?");
    return 0;
}

static int NVTX_API inject_pop(nvtxDomainHandle_t d)
{
    inject_calls++;
    if (inject_log)
        fprintf(inject_log, "pop %s\n", d == (nvtxDomainHandle_t)(uintptr_t)1 ? inject_domain : "?");
    return 0;
}

int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
    const NvtxExportTableCallbacks *cb = (const NvtxExportTableCallbacks *)get(NVTX_ETID_CALLBACKS);
    NvtxFunctionTable t = NULL;
    unsigned int n = 0;
    const char *path = getenv("TTFT_TPOT_NVTX_LOG");
    if (!cb || (path && !(inject_log = fopen(path, "w"))))
        return 0;
    if (inject_log)
        setvbuf(inject_log, NULL, _IONBF, 0); /* each line on disk when written */
    if (!cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &t, &n) || n <= NVTX_CBID_CORE2_DomainDestroy)
        return 0;
    *t[NVTX_CBID_CORE2_DomainCreateA] = (NvtxFunctionPointer)inject_create;
    *t[NVTX_CBID_CORE2_DomainDestroy] = (NvtxFunctionPointer)inject_destroy;
    *t[NVTX_CBID_CORE2_DomainRangePushEx] = (NvtxFunctionPointer)inject_push;
    *t[NVTX_CBID_CORE2_DomainRangePop] = (NvtxFunctionPointer)inject_pop;
    return 1;
}
