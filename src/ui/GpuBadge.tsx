// Header badge: the WebGPU adapter in use, or why there is none.
import { useStudio } from '../store/store';

export function GpuBadge() {
  const status = useStudio((s) => s.gpuStatus);
  const report = useStudio((s) => s.gpuReport);
  const text = status === 'ready' && report ? `${report.vendor} ${report.architecture}${report.isFallback ? ' (software)' : ''}`
    : status === 'opening' ? 'opening GPU...' : status === 'unavailable' ? 'WebGPU unavailable' : status === 'error' ? 'GPU error' : 'GPU idle';
  return <span className={`badge badge-${status}`} data-testid="gpu-badge">{text}</span>;
}
