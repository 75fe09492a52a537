// The implementation compiled as C++.
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot_tools.h"
