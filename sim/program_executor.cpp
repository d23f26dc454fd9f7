#include "sim/program_executor.hpp"
