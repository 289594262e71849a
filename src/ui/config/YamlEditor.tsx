// The config's YAML editor: CodeMirror 6 with YAML highlighting and a linter that underlines the
// key the CLI's message is about (the message itself on hover). The text
// lives in the store; the editor follows it when the form or a preset changes it.
import { useEffect, useRef } from 'react';
import { EditorView, drawSelection, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { yaml } from '@codemirror/lang-yaml';
import { linter, lintGutter, type Diagnostic } from '@codemirror/lint';
import { checkConfigText } from './validate';

interface Props {
  text: string;
  file: string;
  label: string;
  onChange: (text: string) => void;
}

export function YamlEditor({ text, file, label, onChange }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const onChangeRef = useRef(onChange);
  useEffect(() => {
    onChangeRef.current = onChange;
  }, [onChange]);

  useEffect(() => {
    const lint = linter((v): Diagnostic[] => {
      const r = checkConfigText(v.state.doc.toString(), file);
      return r.ok ? [] : [{ from: r.problem.from, to: r.problem.to, severity: 'error', message: r.problem.message }];
    }, { delay: 250 });
    const v = new EditorView({
      parent: host.current!,
      doc: text,
      extensions: [
        // The standard keymap with undo history; Tab is not bound, so it leaves the editor
        // (keyboard users are not trapped).
        history(), keymap.of([...defaultKeymap, ...historyKeymap]),
        lineNumbers(), drawSelection(), highlightActiveLine(), EditorView.lineWrapping,
        syntaxHighlighting(defaultHighlightStyle), yaml(), lint, lintGutter(),
        EditorView.contentAttributes.of({ 'aria-label': label, 'data-testid': 'config-yaml' }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) onChangeRef.current(u.state.doc.toString());
        }),
      ],
    });
    view.current = v;
    return () => v.destroy();
    // The editor is created once; later text changes arrive through the effect below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [file, label]);

  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== text) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: text } });
  }, [text]);

  return <div ref={host} className="yaml-editor" />;
}
