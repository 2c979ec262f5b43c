// A higher layer may include the lower one's public headers, not its private ones.
#include "low/low.h"
#include "low/private.h"
