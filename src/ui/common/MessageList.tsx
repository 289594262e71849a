// A conversation as a list: each message's role (with the tool's name for a tool response), its
// text when it has any, and each tool call's JSON. Used by the episode detail (src/ui/run/) and the
// Datasets panel's previews of SFT lines and task openings (src/ui/datasets/).
import type { ChatMessage } from '../../agents/chat-template';

export function MessageList({ messages, className = 'messages', testId }: { messages: readonly ChatMessage[]; className?: string; testId?: string }) {
  return (
    <ol className={className} data-testid={testId}>
      {messages.map((m, i) => (
        <li key={i} className={`turn turn-${m.role}`}>
          <span className={`role role-${m.role}`}>{m.role}{m.name ? ` (${m.name})` : ''}</span>
          {(m.content || !m.tool_calls?.length) && <pre>{m.content}</pre>}
          {m.tool_calls?.map((c, j) => <pre key={j} className="tool-json" data-testid="tool-call-json">{JSON.stringify(c, null, 2)}</pre>)}
        </li>
      ))}
    </ol>
  );
}
