// The implementation compiled as C++: ttft_tpot_tools.h, which includes ttft_tpot_serve.h and
// ttft_tpot.h, so all three halves are compiled here.
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot_tools.h"
