import { render } from 'preact';
import { App } from './app';
import { applyTheme, currentTheme } from './lib/theme';
import './styles.css';

applyTheme(currentTheme());
render(<App />, document.getElementById('app')!);
