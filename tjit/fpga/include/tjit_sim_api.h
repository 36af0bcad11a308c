// What a C-simulation library exports to its host (tjit's ctypes runtime, the export's
// testbench): the last region's error and the watchdog. Included by one translation
// unit only (the functions are defined here).
#ifndef TJIT_SIM_API_H
#define TJIT_SIM_API_H
#include "tjit_sim_region.h"
extern "C" const char *tj_sim_last_error(void) {
  return tj_sim::last_error.c_str();
}
extern "C" void tj_sim_clear_error(void) { tj_sim::last_error.clear(); }
extern "C" void tj_sim_set_watchdog(double seconds) {
  tj_sim::watchdog_seconds = seconds;
}
#endif
