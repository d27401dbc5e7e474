// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

// The site's side of pnmpi (docs/site.md): the one failure policy for modules the site
// configuration added, and the one place job records and notes are named and created in
// the site's record directory, LOGDIR/YYYY/M/D/.

#include <ctime>
#include <string>
#include <string_view>

namespace pnmpi {

/// This process's rank as the launcher set it (OMPI_COMM_WORLD_RANK, PMI_RANK,
/// PMIX_RANK, SLURM_PROCID), or -1 when none says.
int launcher_rank();

/// The job's id from the batch system (SLURM_JOB_ID, PBS_JOBID, LSB_JOBID), or "".
std::string batch_job_id();

/// `text` as one part of a record's file name: the characters other than letters, digits,
/// '.', '+' and '-' become '-', at most 64 of them, never empty ("unknown").
std::string name_part(std::string_view text);

/// The file name of a job record, Darshan's pattern:
/// `USER_EXE_idJOB_M-D-SECONDS-UNIQUE.SUFFIX`, where SECONDS counts from midnight (UTC) and
/// UNIQUE is 16 hex digits. Every part is escaped (name_part); JOB is the batch id or
/// `pPID`.
std::string record_file_name(const std::string &user, const std::string &exe,
                             const std::string &job, const std::tm &utc, unsigned long long unique,
                             const std::string &suffix);

/// Creates a new record file for this process in LOGDIR/YYYY/M/D/ (UTC today), which must
/// exist (pnmpi-admin mkdirs makes them): exclusively (O_CREAT|O_EXCL|O_NOFOLLOW), mode 0640
/// (owner and the day directory's group, an admin group), never following a link at any
/// part of the path below LOGDIR. Returns the descriptor and sets *path; throws pnmpi::Error
/// naming the directory and the reason.
int create_record_file(const std::string &logdir, const std::string &suffix, std::string *path);

/// The record directory of this job's site configuration ("" when none); set at load.
void set_site_records(const std::string &logdir);
const std::string &site_records();

/// The site policy's one voice. Prints `pnmpi: warning: MESSAGE` on stderr (on launcher
/// rank 0 only when `job_wide`: a failure every rank meets, such as a module that cannot
/// load, is said once per job) and appends it to this process's note in the record
/// directory (`....warnings`, for the admin), if there is one. Never throws; never ends
/// the job.
void site_warning(const std::string &message, bool job_wide);

} // namespace pnmpi
