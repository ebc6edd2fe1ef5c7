;;; big.el --- sessionls.el on a large session in batch Emacs  -*- lexical-binding: t; -*-

;; emacs --batch -l big.el, with SESSIONLS_BIN, SESSIONLS_EL_DIR and
;; SESSIONLS_FILE (a large session, e.g. 15 MB from bench/gen).
;; Opens it with eglot, waits for the lenses, types one character inside a
;; string and waits for the lenses again; prints how long each took and
;; how many lenses there were (the server's count: `budget --format json').
;; Lens placement was quadratic (a `forward-line' from the top per lens):
;; a 15 MB session got no lenses within 150 s. The bound here only guards
;; against a hang; the times are printed for the person reading the log.

(require 'cl-lib)
(require 'subr-x)

(defvar big-bin (getenv "SESSIONLS_BIN"))
(defvar big-file (getenv "SESSIONLS_FILE"))
(defconst big-limit 60.0 "Seconds after which waiting counts as a hang.")

(defun big-log (fmt &rest args) (princ (concat (apply #'format fmt args) "\n")))

(defun big-wait (pred)
  "Run timers and process output until PRED is non-nil or `big-limit' passes.
Returns the seconds waited, or nil on time-out."
  (let ((start (float-time)) done)
    (while (and (not (setq done (funcall pred))) (< (- (float-time) start) big-limit))
      (accept-process-output nil 0.02)
      ;; Idle timers do not run in batch: do their work.
      (when (bound-and-true-p eglot--managed-mode) (eglot--signal-textDocument/didChange))
      (when (bound-and-true-p sessionls--lens-timer)
        (timer-event-handler sessionls--lens-timer)))
    (and done (- (float-time) start))))

(defun big-units ()
  "How many unit lenses the server gives the file: units from the CLI."
  (with-temp-buffer
    (call-process big-bin nil (list t nil) nil "budget" "--format" "json" "--max-chars" "9007199254740992" big-file)
    (goto-char (point-min))
    (length (plist-get (json-parse-buffer :object-type 'plist :array-type 'list) :units))))

(defvar big-shown 0 "The generation of the lenses last shown.")

(defun big-lens-count ()
  (cl-loop for ov in sessionls--lens-overlays when (overlay-buffer ov)
           sum (length (overlay-get ov 'sessionls-lens))))

(defun big-run ()
  (add-to-list 'load-path (getenv "SESSIONLS_EL_DIR"))
  (require 'eglot)
  (require 'sessionls)
  (setq sessionls-program big-bin eglot-sync-connect t
        large-file-warning-threshold nil)
  (advice-add 'sessionls--lens-show :after
              (lambda (&rest _) (setq big-shown sessionls--lens-generation)))
  (let* ((units (big-units))
         (want (1+ units)) ; and the Σ lens on line 1
         (size (file-attribute-size (file-attributes big-file)))
         (t0 (float-time)))
    (find-file big-file)
    (eglot-ensure)
    (run-hooks 'post-command-hook)
    (let ((open (big-wait (lambda () (= (big-lens-count) want)))))
      (unless open
        (error "no %d lenses within %.0f s of opening a %d-byte session (have %d)"
               want big-limit size (big-lens-count)))
      (big-log "ok   %s bytes, %d lenses: shown %.1f s after find-file (%.1f s waiting for them)"
               size want (- (float-time) t0) open))
    ;; Type a character inside the content string of the middle line.
    (goto-char (point-min))
    (forward-line (/ (count-lines (point-min) (point-max)) 2))
    (unless (search-forward "\"content\":\"" (line-end-position) t)
      (error "no content string on line %d" (line-number-at-pos)))
    (let ((gen sessionls--lens-generation)
          (t1 (float-time)))
      (insert "x")
      (run-hooks 'post-command-hook)
      (let ((edit (big-wait (lambda () (and (> sessionls--lens-generation gen)
                                            (null sessionls--lens-timer)
                                            (= (big-lens-count) want)
                                            ;; the refreshed lenses are shown
                                            (= big-shown sessionls--lens-generation))))))
        (unless edit
          (error "lenses not refreshed within %.0f s of an edit" big-limit))
        (big-log "ok   one typed character: lenses refreshed %.1f s later" (- (float-time) t1))))
    (big-log "ALL OK: large session")))

(condition-case err
    (progn (big-run) (kill-emacs 0))
  (error (big-log "ERROR %s" (error-message-string err)) (kill-emacs 1)))
