import type { Detector } from './detector.js';

/**
 * Email addresses. The domain's labels are dot-separated runs of one class, so the pattern
 * cannot backtrack over them; the last label must be a letters-only TLD of two or more.
 */
export const EMAIL: Detector = {
  id: 'email',
  patterns: [{
    re: /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+(?![A-Za-z0-9-])/g,
    valid: (m) => /\.[A-Za-z]{2,}$/.test(m),
    needs: '@',
  }],
};
