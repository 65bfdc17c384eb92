// The change tail's limits live with every other limit, in src/limits.ts.
export {
  tail_limit_default,
  tail_limit_max,
  tail_notice_wait_ms,
  tail_page_bytes_max,
  tail_read_bytes_max,
  tail_read_frames_max,
  tail_recent_bytes_max,
  tail_recent_commit_bytes_max,
  tail_recent_commits_max,
  tail_reads_per_poll_max,
  tail_wait_ms_max,
} from '../limits.js'
