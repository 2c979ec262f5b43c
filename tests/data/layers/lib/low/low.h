// A lower layer may not include a higher one.
#include "high/high.h"
