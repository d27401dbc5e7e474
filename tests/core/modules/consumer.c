/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Test module for services: in PNMPI_Init, looks up what provider.c publishes and prints one
 * "consumer: ..." line per check, with the status string of every failure. It wraps no MPI
 * routine. It includes PnMPI's umbrella header, as a module written for PnMPI does. */

#include <pnmpimod.h>
#include <stdio.h>

static void show(const char *what, PNMPI_status_t status) {
  printf("consumer: %s: %s\n", what, PNMPI_Service_StatusString(status));
}

PNMPI_EXPORT void PNMPI_Init(void) {
  PNMPI_modHandle_t self = -1, provider = -1, handle = -1;
  PNMPI_Service_GetModuleSelf(&self);
  PNMPI_status_t s = PNMPI_Service_GetModuleByName("provider-name", &provider);
  printf("consumer: self=%d provider=%d (%s) modules=%d stacks=%d\n", self, provider,
         PNMPI_Service_strerror(s), pnmpi_module_count(), pnmpi_stack_count());

  PNMPI_Service_descriptor_t service;
  s = PNMPI_Service_GetServiceByName(provider, "api.add", "ii", &service);
  if (s == PNMPI_SUCCESS)
    printf("consumer: api.add(2, 3) = %d\n", ((int (*)(int, int))service.fct)(2, 3));
  else
    show("api.add", s);
  show("api.add with signature dd",
       PNMPI_Service_GetServiceByName(PNMPI_MODHANDLE_NULL, "api.add", "dd", &service));
  show("api.nope",
       PNMPI_Service_GetServiceByName(PNMPI_MODHANDLE_NULL, "api.nope", "ii", &service));
  show("api.add of module 99", PNMPI_Service_GetServiceByName(99, "api.add", "ii", &service));

  PNMPI_Global_descriptor_t global;
  s = PNMPI_Service_GetGlobalByName(PNMPI_MODHANDLE_NULL, "api.counter", 'i', &global);
  if (s == PNMPI_SUCCESS) {
    const int before = *global.addr.i;
    *global.addr.i += 2; /* the provider prints it at finalize */
    printf("consumer: api.counter = %d, set to %d\n", before, *global.addr.i);
  } else
    show("api.counter", s);
  show("api.counter with signature d",
       PNMPI_Service_GetGlobalByName(provider, "api.counter", 'd', &global));
  show("api.nope global", PNMPI_Service_GetGlobalByName(provider, "api.nope", 'i', &global));

  show("module nope", PNMPI_Service_GetModuleByName("nope", &handle));
  s = PNMPI_Service_GetStackByName("default", &handle);
  printf("consumer: stack default = %d (%s)\n", handle, PNMPI_Service_strerror(s));
  show("stack nope", PNMPI_Service_GetStackByName("nope", &handle));
  PNMPI_Service_RegisterModule("consumer-renamed");
  s = PNMPI_Service_GetModuleByName("consumer-renamed", &handle);
  printf("consumer: renamed = %d (%s)\n", handle, PNMPI_Service_strerror(s));
  const char *value = NULL;
  s = PNMPI_Service_GetArgument(self, "colour", &value);
  printf("consumer: argument colour = %s (%s)\n", value ? value : "(none)",
         PNMPI_Service_strerror(s));
  show("argument missing", PNMPI_Service_GetArgument(self, "missing", &value));
  void *address = NULL;
  show("return address", PNMPI_Service_GetReturnAddress(&address));
  printf("consumer: pcontrol self=%d\n", PNMPI_Service_GetPcontrolSelf());
  fflush(stdout);
  PNMPI_Service_CallHook("api_hook");
  fflush(stdout);
}
