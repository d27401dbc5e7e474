/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Handles as PnMPI numbers them (a `stack` line takes a number too): in PNMPI_Init each
 * layer prints its own handle, its stack's, and what the lookups give; `argument hook yes`
 * on one layer makes it call PNMPI_Service_CallHook_NewStack("num_hook", <stack named by
 * `argument into`>); num_hook prints the layer it ran in and recurses down that stack. */

#include <pnmpimod.h>
#include <stdio.h>
#include <string.h>

/* The handle, or the failed status (a negative number). */
static PNMPI_modHandle_t module_by_name(const char *name) {
  PNMPI_modHandle_t h = -1;
  const PNMPI_status_t s = PNMPI_Service_GetModuleByName(name, &h);
  return s == PNMPI_SUCCESS ? h : (PNMPI_modHandle_t)s;
}

void num_hook(void) {
  PNMPI_modHandle_t self = -1;
  PNMPI_Service_GetModuleSelf(&self);
  printf("numbering: num_hook in %d (%s)\n", self, PNMPI_Service_GetArgumentSelf("tag"));
  PNMPI_Service_CallHook(PNMPI_HOOK_SAME);
}

void PNMPI_Init(void) {
  PNMPI_modHandle_t self = -1, stack = -1, h = -1;
  PNMPI_Service_GetModuleSelf(&self);
  pnmpi_module_stack(self, &stack);
  const char *tag = PNMPI_Service_GetArgumentSelf("tag");
  printf("numbering: %s self=%d stack=%d", tag, self, stack);
  printf(" by-name=%d", module_by_name(tag));
  const char *arg = NULL;
  printf(" arg=%s", PNMPI_Service_GetArgument(self, "tag", &arg) == PNMPI_SUCCESS ? arg : "-");
  int flag = -1;
  printf(" pcontrol=%d\n", PNMPI_Service_GetPcontrol(self, &flag) == PNMPI_SUCCESS ? flag : -1);
  const char *into = PNMPI_Service_GetArgumentSelf("into");
  if (into != NULL) {
    const PNMPI_status_t s = PNMPI_Service_GetStackByName(into, &h);
    printf("numbering: stack %s = %d (%s)\n", into, s == PNMPI_SUCCESS ? h : (int)s,
           PNMPI_Service_strerror(s));
    if (s == PNMPI_SUCCESS)
      PNMPI_Service_CallHook_NewStack("num_hook", h);
  }
  fflush(stdout);
}

/* Registers its tag as its name, so that GetModuleByName finds each layer. */
void PNMPI_RegistrationPoint(void) {
  const char *tag = PNMPI_Service_GetArgumentSelf("tag");
  if (tag != NULL)
    PNMPI_Service_RegisterModule(tag);
}
