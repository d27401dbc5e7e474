/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Test module for services: publishes the service "api.add" (signature "ii": int (int, int))
 * and the global "api.counter" (an int, signature 'i') under the module name it gives
 * itself with PNMPI_ModuleName, and a hook function for PNMPI_Service_CallHook. It wraps no
 * MPI routine. */

#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <stdio.h>
#include <string.h>

PNMPI_EXPORT const char *PNMPI_ModuleName = "provider-name";

static int g_counter = 40;

static int add(int a, int b) {
  return a + b;
}

PNMPI_EXPORT void api_hook(void) {
  PNMPI_modHandle_t self = -1;
  PNMPI_Service_GetModuleSelf(&self);
  printf("provider: api_hook in layer %d\n", self);
  fflush(stdout);
  PNMPI_Service_CallHook(PNMPI_HOOK_SAME); /* on to the next layer that has one */
}

PNMPI_EXPORT void PNMPI_RegistrationPoint(void) {
  PNMPI_Service_descriptor_t service;
  memset(&service, 0, sizeof service);
  strcpy(service.name, "api.add");
  strcpy(service.sig, "ii");
  service.fct = (PNMPI_Service_Fct_t)add;
  PNMPI_status_t first = PNMPI_Service_RegisterService(&service);
  PNMPI_status_t again = PNMPI_Service_RegisterService(&service);
  PNMPI_Global_descriptor_t global;
  memset(&global, 0, sizeof global);
  strcpy(global.name, "api.counter");
  global.sig = 'i';
  global.addr.i = &g_counter;
  PNMPI_status_t g = PNMPI_Service_RegisterGlobal(&global);
  printf("provider: register service=%d again=%d global=%d\n", first, again, g);
  fflush(stdout);
}

PNMPI_EXPORT void PNMPI_Fini(void) {
  printf("provider: counter=%d\n", g_counter);
  fflush(stdout);
}
