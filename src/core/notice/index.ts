export { failureInWords, recoveryReason, type FailureWords } from './recovery-reason.js';
export {
  isRetryNotice,
  manualRecoveryMessage,
  planNoticeWrite,
  retryNotice,
  safeReason,
  type NoticeBody,
  type NoticeWritePlan,
  type RetryNoticeInput,
  type TranscriptMessage,
} from './retry-notice.js';
